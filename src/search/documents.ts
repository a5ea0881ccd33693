import { createHash } from 'node:crypto';
import type { IndexName } from './vectors/vector-index.ts';

/**
 * What each search index holds for one dataset, as text: the dataset itself (`packages`), each
 * resource with its column names (`resources`), and chunks of the text the pipeline extracted from
 * files (`contents`). Pure: the sync embeds and stores what this returns.
 */

export interface DatasetForSearch {
  id: string;
  title: string | null;
  name: string;
  notes: string | null;
  tags: string[];
  organizationTitle: string | null;
  resources: ResourceForSearch[];
}

export interface ResourceForSearch {
  id: string;
  name: string | null;
  description: string | null;
  format: string | null;
  /** Column names of its preview, when it has one. */
  columns: string[];
  /** The extracted text (contents.txt), when the pipeline wrote one. */
  contents: string | null;
}

export interface SearchDocument {
  index: IndexName;
  id: string;
  resourceId: string | null;
  chunk: number | null;
  text: string;
}

/** The models embed a few hundred words at most; past that the text is cut anyway. */
const PACKAGE_NOTES_CHARS = 1_500;
const CHUNK_CHARS = 800;
const MAX_CHUNKS_PER_RESOURCE = 16;

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

export function packageText(dataset: DatasetForSearch): string {
  const parts = [
    dataset.title ?? dataset.name.replaceAll('-', ' '),
    dataset.tags.length ? `Tags: ${dataset.tags.join(', ')}` : '',
    dataset.organizationTitle ? `Published by ${dataset.organizationTitle}` : '',
    squash(dataset.notes ?? '').slice(0, PACKAGE_NOTES_CHARS),
  ];
  return parts.filter(Boolean).join('\n');
}

export function resourceText(resource: ResourceForSearch, datasetTitle: string): string {
  const parts = [
    resource.name ?? '',
    resource.format ? `Format: ${resource.format}` : '',
    resource.columns.length ? `Columns: ${resource.columns.join(', ')}` : '',
    squash(resource.description ?? '').slice(0, PACKAGE_NOTES_CHARS),
    `Part of: ${datasetTitle}`,
  ];
  return parts.filter(Boolean).join('\n');
}

/**
 * Chunks of about CHUNK_CHARS, cut at a line end where there is one (a CSV's rows), else at a blank,
 * so no chunk starts mid-word; at most MAX_CHUNKS_PER_RESOURCE.
 */
export function chunkText(text: string): string[] {
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest.length > 0 && chunks.length < MAX_CHUNKS_PER_RESOURCE) {
    let cut = rest.length;
    if (rest.length > CHUNK_CHARS) {
      const window = rest.slice(0, CHUNK_CHARS);
      const newline = window.lastIndexOf('\n');
      const blank = window.lastIndexOf(' ');
      cut = newline > CHUNK_CHARS / 2 ? newline : blank > CHUNK_CHARS / 2 ? blank : CHUNK_CHARS;
    }
    const chunk = rest.slice(0, cut).trim();
    if (chunk) chunks.push(chunk);
    rest = rest.slice(cut).trim();
  }
  return chunks;
}

/** A stable UUID for a chunk (Qdrant takes UUIDs only): the same resource and position, the same id. */
export function chunkId(resourceId: string, chunk: number): string {
  const hex = createHash('sha256').update(`${resourceId}:${chunk}`).digest('hex');
  // Shaped as a version-5-style UUID (variant bits set) so every UUID parser accepts it.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function searchDocuments(dataset: DatasetForSearch): SearchDocument[] {
  const title = dataset.title ?? dataset.name;
  const docs: SearchDocument[] = [{ index: 'packages', id: dataset.id, resourceId: null, chunk: null, text: packageText(dataset) }];
  for (const resource of dataset.resources) {
    docs.push({ index: 'resources', id: resource.id, resourceId: resource.id, chunk: null, text: resourceText(resource, title) });
    chunkText(resource.contents ?? '').forEach((text, chunk) => {
      docs.push({ index: 'contents', id: chunkId(resource.id, chunk), resourceId: resource.id, chunk, text });
    });
  }
  return docs;
}

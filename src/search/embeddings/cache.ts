import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EmbeddingProvider } from './provider.ts';

/**
 * The `embeddings` table as a cache keyed by (model, SHA-256 of the text): a text is embedded once per
 * model, and any vector index is rebuilt from here without embedding again.
 */

/** Rows per statement, well under PostgreSQL's 65,535 bind parameters. */
const CHUNK = 1000;

export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** float32 little-endian, whatever the machine's byte order. */
export function vectorToBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i], i * 4);
  return bytes;
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0) throw new Error(`a stored vector has ${bytes.byteLength} bytes, not a multiple of 4`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/** The stored vectors of `model` among `hashes`; absent hashes are absent from the map. */
export async function loadVectors(em: EntityManager, model: string, hashes: Iterable<string>): Promise<Map<string, Float32Array>> {
  const unique = [...new Set(hashes)];
  const found = new Map<string, Float32Array>();
  for (let i = 0; i < unique.length; i += CHUNK) {
    const query = em
      .getKnex()
      .select('content_hash', 'vector')
      .from('embeddings')
      .where('model', model)
      .whereIn('content_hash', unique.slice(i, i + CHUNK));
    const rows = await em.execute<{ content_hash: string; vector: Buffer }[]>(query);
    for (const row of rows) found.set(row.content_hash, bytesToVector(row.vector));
  }
  return found;
}

/**
 * Texts embedded and stored at a time: a sync of a dataset with thousands of resources that runs out of
 * time keeps what it embedded, and its retry goes on from there instead of starting over.
 */
const EMBED_CHUNK = 256;

/**
 * One vector per text, in order: cached ones from the table, the rest embedded (each distinct text once)
 * and stored, a chunk at a time. Concurrent callers may embed the same new text; the first insert wins,
 * both get a vector.
 */
export async function embedCached(em: EntityManager, provider: EmbeddingProvider, texts: string[]): Promise<Float32Array[]> {
  const hashes = texts.map(contentHash);
  const vectors = await loadVectors(em, provider.model, hashes);

  const missing = new Map<string, string>();
  hashes.forEach((hash, i) => {
    if (!vectors.has(hash)) missing.set(hash, texts[i]);
  });
  const queue = [...missing];
  for (let start = 0; start < queue.length; start += EMBED_CHUNK) {
    const chunk = queue.slice(start, start + EMBED_CHUNK);
    const embedded = await provider.embed(chunk.map(([, text]) => text));
    if (embedded.length !== chunk.length)
      throw new Error(`${provider.model} returned ${embedded.length} vectors for ${chunk.length} texts`);
    const rows = chunk.map(([hash], i) => {
      vectors.set(hash, embedded[i]);
      return {
        model: provider.model,
        content_hash: hash,
        dimensions: embedded[i].length,
        vector: vectorToBytes(embedded[i]),
        created_at: new Date(),
      };
    });
    const insert = em.getKnex().insert(rows).into('embeddings').onConflict(['model', 'content_hash']).ignore();
    await em.execute(insert, [], 'run');
  }
  return hashes.map((hash) => vectors.get(hash)!);
}

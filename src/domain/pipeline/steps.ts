import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline as pump } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.ts';
import { Dataset, Resource } from '../../entities/index.ts';
import type { SearchServices } from '../../search/search-services.ts';
import { syncDatasetSearch } from '../../search/sync.ts';
import { contentsKey, fetchedKey, previewKey, resourcePrefix } from '../../storage/keys.ts';
import { liveSourceKey } from '../resources/stored-objects.ts';
import { servedPreviewKey, type PreviewRecord } from './preview-record.ts';
import { keepServedAsVersion, recordVersion, unversionedKeys, type MadePreview } from './version-record.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { FetchError, safeFetch } from '../../net/safe-fetch.ts';
import { linkFailureReason } from './link-failures.ts';
import { buildTabularPreview, detectFormat, extractText, type DetectedFormat } from '../../tabular/index.ts';
import { markStarted, markStep, PIPELINE_STEPS, type PipelineStepName } from './record.ts';

/** A failure that retrying cannot fix (the bytes are what they are); the run fails with this message. */
export class PipelineError extends Error {}

export interface StepDeps {
  em: EntityManager;
  storage: ObjectStore;
  config: Config;
  search: SearchServices;
  /** Long steps call this as they go, so a dead worker is noticed quickly and another picks up. */
  heartbeat: () => void;
}

/** Enough of the head of a file to recognise it: magic bytes and a few lines of text. */
const SNIFF_BYTES = 1024 * 1024;
/** Text kept for the contents index. */
const CONTENTS_BYTES = 64 * 1024;

const TEXT_FORMATS = new Set(['JSON', 'GEOJSON', 'XML', 'HTML', 'TXT', 'MD', 'CSV', 'TSV']);

export interface RunPlan {
  steps: PipelineStepName[];
}

async function loadResource(em: EntityManager, resourceId: string) {
  return em.findOne(Resource, { id: resourceId }, { populate: ['dataset'] });
}

/**
 * The run takes over the resource's pipeline record. Null when there is nothing to do: the resource is
 * gone, its dataset is deleted, or an upload has no bytes yet.
 */
export async function startRun({ em }: StepDeps, resourceId: string, workflowId: string, runId: string): Promise<RunPlan | null> {
  const resource = await loadResource(em, resourceId);
  if (!resource || (resource.dataset as Dataset).state === 'deleted' || !resource.url) return null;
  const steps = PIPELINE_STEPS.filter((s) => s !== 'fetch' || resource.urlType === 'link');
  if (!(await markStarted(em, resourceId, workflowId, runId, steps))) return null;
  return { steps };
}

/** Copies the first `bytes` of an object to a local file, streamed. */
async function downloadHead(storage: ObjectStore, key: string, bytes: number, dir: string) {
  const stat = await storage.stat(key);
  if (!stat) throw new PipelineError('The file is missing from storage; upload it again.');
  const file = path.join(dir, 'source');
  if (stat.size === 0) {
    await fsp.writeFile(file, '');
  } else {
    const end = Math.min(stat.size, bytes) - 1;
    await pump(await storage.read(key, { start: 0, end }), fs.createWriteStream(file));
  }
  return { file, size: stat.size };
}

/** A newer run took over the record (new bytes, a re-run): this one stops. */
const superseded = () => new PipelineError('A newer run of the pipeline replaced this one.');

/**
 * Outputs are keyed by resource, not by run: a step checks that its run is still the current one just
 * before it writes, so a replaced run that is still busy does not overwrite the newer run's files.
 */
async function assertCurrentRun(deps: StepDeps, resourceId: string, runId: string) {
  const [row] = await deps.em.execute<{ run: string | null }[]>(`select extras->'pipeline'->>'runId' as run from resources where id = ?`, [
    resourceId,
  ]);
  if (row?.run !== runId) throw superseded();
}

/**
 * A resource deleted while a step was writing its output: the deletion removed the files it saw, so the
 * step removes what it wrote after, rather than leave it orphaned.
 */
async function removeIfDeleted(deps: StepDeps, resourceId: string) {
  if (await deps.em.count(Resource, { id: resourceId })) return;
  await deps.storage.removePrefix(resourcePrefix(resourceId));
  throw new PipelineError('The resource was deleted.');
}

async function withWorkDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'almanac-pipeline-'));
  try {
    return await work(dir);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** Runs one step: running, then succeeded with its results merged into extras (only for this run). */
async function step<T extends Record<string, unknown>>(
  deps: StepDeps,
  resourceId: string,
  runId: string,
  name: PipelineStepName,
  options: { also?: (tx: EntityManager, results: T) => Promise<Partial<T> | null | void> },
  work: () => Promise<T>,
): Promise<T> {
  if (!(await markStep(deps.em, resourceId, runId, name, 'running'))) throw superseded();
  const results = await work();
  // What `also` returns replaces those results in what the step records (a held version's preview).
  const also = options.also && (async (tx: EntityManager) => void Object.assign(results, await options.also!(tx, results)));
  if (!(await markStep(deps.em, resourceId, runId, name, 'succeeded', { results, also }))) throw superseded();
  return results;
}

/** A link's download: the whole exchange, redirects and body included. */
const LINK_FETCH_TIMEOUT_MS = 120_000;

/**
 * A link's bytes, fetched once into the store (at most PREVIEW_MAX_BYTES and a little over, so the cut
 * can tell a row's end), so that every later step and /preview read our copy, never the remote host.
 * Private network addresses are refused (src/net/safe-fetch.ts).
 */
export async function fetchStep(deps: StepDeps, resourceId: string, runId: string) {
  const key = fetchedKey(resourceId, runId);
  const previous = await loadResource(deps.em, resourceId).then((resource) => resource && liveSourceKey(resource));
  // A preview from before versions existed becomes version 1 while the record still names the bytes it was made of.
  const also = (tx: EntityManager) => keepServedAsVersion(tx, resourceId);
  await step(deps, resourceId, runId, 'fetch', { also }, async () => {
    const resource = await loadResource(deps.em, resourceId);
    if (!resource?.url) throw new PipelineError('The resource has no URL.');
    const maxBytes = deps.config.pipeline.previewMaxBytes + 64 * 1024;
    let response;
    try {
      response = await safeFetch(resource.url, {
        timeoutMs: LINK_FETCH_TIMEOUT_MS,
        maxBytes,
        allowPrivateNetworks: deps.config.fetch.allowPrivateNetworks,
      });
    } catch (err) {
      // Refused addresses and dead hosts will not change on a retry within this run.
      if (err instanceof FetchError) throw new PipelineError(linkFailureReason(err), { cause: err });
      throw err;
    }
    if (response.status >= 400) {
      response.discard();
      throw new PipelineError(`The link answered HTTP ${response.status}.`);
    }
    const contentType = String(response.headers['content-type'] ?? '') || undefined;
    await assertCurrentRun(deps, resourceId, runId).catch((err) => {
      response.discard();
      throw err;
    });
    const hash = createHash('sha256');
    const hashed = response.body.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      }),
    );
    response.body.once('error', (err) => hashed.destroy(err));
    const { size } = await deps.storage.put(key, hashed, { contentType });
    await removeIfDeleted(deps, resourceId);
    return {
      fetched: {
        key,
        sha256: hash.digest('hex'),
        url: response.url,
        httpStatus: response.status,
        contentType: contentType ?? null,
        bytes: size,
        truncated: response.truncated,
        at: new Date().toISOString(),
      },
    };
  });
  if (previous && previous !== key) await removeUnversioned(deps, resourceId, [previous]);
}

/** What the content is, whatever the name or declared format says. */
export async function inspectStep(deps: StepDeps, resourceId: string, runId: string): Promise<DetectedFormat> {
  const previous = await servedPreview(deps, resourceId);
  const { detected } = await step(deps, resourceId, runId, 'inspect', {}, () =>
    withWorkDir(async (dir) => {
      const resource = await loadResource(deps.em, resourceId);
      if (!resource) throw new PipelineError('The resource was deleted.');
      const { file } = await downloadHead(deps.storage, liveSourceKey(resource), SNIFF_BYTES, dir);
      const upload = resource.extras.upload as { filename?: string } | undefined;
      const found = await detectFormat(file, {
        filename: upload?.filename ?? (resource.url ? new URL(resource.url).pathname : null),
        declaredFormat: resource.format ?? null,
        mimetype: resource.mimetype ?? null,
      });
      // The declared format is the publisher's word; the detected one fills the gaps it left.
      await deps.em.nativeUpdate(Resource, { id: resourceId, format: null }, { format: found.format });
      await deps.em.nativeUpdate(
        Resource,
        { id: resourceId, mimetype: { $in: [null, 'application/octet-stream'] } },
        { mimetype: found.mimetype },
      );
      // Not a table after all (same bytes, newer rules): an earlier preview stops being served.
      const noPreview = found.tabular ? {} : { preview: null, queryable: false };
      return { detected: { ...found, text: isTextFormat(found) }, ...noPreview };
    }),
  );
  if (!detected.tabular) await retirePreview(deps, resourceId, previous, null);
  return detected;
}

/** The preview served before this run, read before the run replaces it. */
async function servedPreview(deps: StepDeps, resourceId: string) {
  const [row] = await deps.em.execute<{ preview: PreviewRecord | null }[]>(
    `select extras->'preview' as preview from resources where id = ?`,
    [resourceId],
  );
  return row?.preview ?? null;
}

/**
 * Removes the object of a preview no longer served (`kept` is the one that is) unless a version keeps it;
 * the sweeper catches a removal lost to a crash.
 */
async function retirePreview(deps: StepDeps, resourceId: string, previous: PreviewRecord | null, kept: string | null) {
  if (previous && servedPreviewKey(resourceId, previous) !== kept)
    await removeUnversioned(deps, resourceId, [servedPreviewKey(resourceId, previous)]);
}

async function removeUnversioned(deps: StepDeps, resourceId: string, keys: string[]) {
  await Promise.all((await unversionedKeys(deps.em, resourceId, keys)).map((key) => deps.storage.remove(key)));
}

/**
 * The typed Parquet preview and its schema, from at most the first PREVIEW_MAX_BYTES of a CSV/TSV. It
 * goes to this run's own object, and the record switches to it in one statement when the step succeeds:
 * until then the previous preview is served, so a re-run never leaves the resource unqueryable.
 */
export async function previewStep(deps: StepDeps, resourceId: string, runId: string, tabular: 'csv' | 'tsv') {
  const maxBytes = deps.config.pipeline.previewMaxBytes;
  const previous = await servedPreview(deps, resourceId);
  const key = previewKey(resourceId, runId);
  let readFrom = '';
  let replaced: string[] = [];
  // The version this preview makes is recorded in the transaction that makes it the served one (or holds it).
  const also = (tx: EntityManager, results: { preview: MadePreview }) => {
    replaced = [];
    return recordVersion(tx, resourceId, readFrom, results.preview, replaced, deps.config.versions.holdBreaking);
  };
  await step(deps, resourceId, runId, 'preview', { also }, () =>
    withWorkDir(async (dir): Promise<{ preview: MadePreview; queryable: boolean }> => {
      const resource = await loadResource(deps.em, resourceId);
      if (!resource) throw new PipelineError('The resource was deleted.');
      readFrom = liveSourceKey(resource);
      // A little past the limit, so the cut can tell whether the limit fell exactly on a row's end.
      const { file, size } = await downloadHead(deps.storage, readFrom, maxBytes + 64 * 1024, dir);
      deps.heartbeat();
      const built = await buildTabularPreview({ sourcePath: file, workDir: dir, maxBytes, tabular });
      deps.heartbeat();
      await assertCurrentRun(deps, resourceId, runId);
      await deps.storage.put(key, fs.createReadStream(built.parquetPath), {
        contentType: 'application/vnd.apache.parquet',
      });
      await removeIfDeleted(deps, resourceId);
      const schema = { ...built.schema, previewTruncated: built.schema.previewTruncated || size > maxBytes + 64 * 1024 };
      return {
        preview: { key, schema, encoding: built.encoding, dialect: built.dialect, sourceBytes: size, createdAt: new Date().toISOString() },
        queryable: true,
      };
    }),
  );
  await retirePreview(deps, resourceId, previous, key);
  await removeUnversioned(deps, resourceId, replaced);
}

/**
 * Plain text for the contents search index: a CSV/TSV's header and first rows, read from its preview;
 * any other text format, the head of the file.
 */
export async function textStep(deps: StepDeps, resourceId: string, runId: string, tabular: 'csv' | 'tsv' | null) {
  await step(deps, resourceId, runId, 'text', {}, () =>
    withWorkDir(async (dir) => {
      let text: string;
      if (tabular) {
        // The served preview: this run's, or the one still served while this run's version is held.
        const resource = await loadResource(deps.em, resourceId);
        const preview = resource?.extras.preview as PreviewRecord | null | undefined;
        if (!preview) throw new PipelineError('The resource was deleted.');
        const parquetPath = path.join(dir, 'preview.parquet');
        await pump(await deps.storage.read(servedPreviewKey(resourceId, preview)), fs.createWriteStream(parquetPath));
        const header = preview.dialect?.header ?? true;
        text = await extractText({ parquetPath, maxBytes: CONTENTS_BYTES, includeHeader: header });
      } else {
        const resource = await loadResource(deps.em, resourceId);
        if (!resource) throw new PipelineError('The resource was deleted.');
        const { file } = await downloadHead(deps.storage, liveSourceKey(resource), CONTENTS_BYTES, dir);
        // A character cut at the limit is dropped, not kept as a replacement mark.
        text = new TextDecoder('utf-8').decode(await fsp.readFile(file), { stream: true });
      }
      await assertCurrentRun(deps, resourceId, runId);
      await deps.storage.put(contentsKey(resourceId), Readable.from([Buffer.from(text, 'utf8')]), {
        contentType: 'text/plain; charset=utf-8',
      });
      await removeIfDeleted(deps, resourceId);
      return { contents: { chars: text.length } };
    }),
  );
}

export const isTextFormat = (detected: DetectedFormat) =>
  detected.tabular !== null || (detected.format !== null && TEXT_FORMATS.has(detected.format));

/** The dataset's search state sees the resource as it now is: its columns and its text included. */
export async function indexStep(deps: StepDeps, resourceId: string, runId: string) {
  await step(deps, resourceId, runId, 'index', {}, async () => {
    const resource = await loadResource(deps.em, resourceId);
    const dataset = resource?.dataset as Dataset | undefined;
    if (dataset?.state === 'active') await syncDatasetSearch(deps, dataset.id);
    return {};
  });
}

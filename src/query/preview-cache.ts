import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from '../storage/object-store.ts';

/**
 * Previews kept on local disk for queries, one file per preview object (each pipeline run writes its own,
 * never over another): the first query of one downloads it (to a temporary name, then renamed), every
 * later one opens it where it is. The file name is a hash, so nothing about the resource shows in
 * DuckDB's messages or settings.
 */
export async function localPreview(storage: ObjectStore, dir: string, key: string): Promise<string> {
  const name = previewCacheName(key);
  const file = path.join(dir, `${name}.parquet`);
  // Checked in place: a stat of a local file takes microseconds; the same check as a promise went
  // through libuv's thread pool and back, 0.2-0.5 ms on a query's path on a busy machine (bench datastore).
  if (fs.existsSync(file)) return file;
  await fsp.mkdir(dir, { recursive: true });
  const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
  try {
    await pipeline(await storage.read(key), fs.createWriteStream(partial));
    await fsp.rename(partial, file);
  } catch (err) {
    await fsp.rm(partial, { force: true });
    throw err;
  }
  return file;
}

/** The cache file's name for a preview object: the sweeper finds the files of previews no longer served by it. */
export const previewCacheName = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 32);

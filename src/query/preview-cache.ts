import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { previewKey } from '../storage/keys.ts';
import type { ObjectStore } from '../storage/object-store.ts';

/**
 * Previews kept on local disk for queries, one file per preview version: the first query of a version
 * downloads it (to a temporary name, then renamed), every later one opens it where it is. The file
 * name is a hash, so nothing about the resource shows in DuckDB's messages or settings.
 */
export async function localPreview(storage: ObjectStore, dir: string, resourceId: string, version: string): Promise<string> {
  const name = createHash('sha256').update(`${resourceId}\n${version}`).digest('hex').slice(0, 32);
  const file = path.join(dir, `${name}.parquet`);
  if (
    await fsp.access(file).then(
      () => true,
      () => false,
    )
  )
    return file;
  await fsp.mkdir(dir, { recursive: true });
  const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
  try {
    await pipeline(await storage.read(previewKey(resourceId)), fs.createWriteStream(partial));
    await fsp.rename(partial, file);
  } catch (err) {
    await fsp.rm(partial, { force: true });
    throw err;
  }
  return file;
}

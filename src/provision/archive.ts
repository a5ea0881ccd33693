import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import { openPromise } from 'yauzl';
import { ProvisionError } from './download.ts';

/**
 * Writes each named member of a zip file (a wheel, a jar) to its destination, streamed. A member that
 * is missing is an error naming it.
 */
export async function extractFromZip(zipFile: string, members: Record<string, string>): Promise<void> {
  const zip = await openPromise(zipFile, { autoClose: false });
  try {
    const wanted = new Map(Object.entries(members));
    for await (const entry of zip.eachEntry()) {
      const dest = wanted.get(entry.fileName);
      if (!dest) continue;
      await pipeline(await zip.openReadStreamPromise(entry), fs.createWriteStream(dest));
      wanted.delete(entry.fileName);
      if (wanted.size === 0) break;
    }
    if (wanted.size > 0) throw new ProvisionError(`${path.basename(zipFile)} does not hold ${[...wanted.keys()].join(', ')}`);
  } finally {
    zip.close();
  }
}

/** Extracts one member of a .tar.gz into `destDir` (under its own name). */
export async function extractFromTarGz(archive: string, member: string, destDir: string): Promise<string> {
  await tar.extract({ file: archive, cwd: destDir, filter: (p) => p.replace(/^\.\//, '') === member });
  const dest = path.join(destDir, member);
  if (!fs.existsSync(dest)) throw new ProvisionError(`${path.basename(archive)} does not hold ${member}`);
  return dest;
}

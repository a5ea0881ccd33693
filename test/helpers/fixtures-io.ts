import { Writable } from 'node:stream';
import yazl from 'yazl';
import { createLogger } from '../../src/logger.ts';

/** A logger whose messages land in `lines`, to check what a user would read. */
export function captureLog() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean).map((l: string) => JSON.parse(l).msg as string));
      done();
    },
  });
  return { log: createLogger('info', sink), lines };
}

/** A real zip archive (a wheel, a jar) holding `members`, each executable. */
export function zip(members: Record<string, Buffer>): Promise<Buffer> {
  const file = new yazl.ZipFile();
  for (const [name, data] of Object.entries(members)) file.addBuffer(data, name, { mode: 0o100755 });
  file.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    file.outputStream.on('data', (c: Buffer) => chunks.push(c));
    file.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    file.outputStream.on('error', reject);
  });
}

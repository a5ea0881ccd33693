import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.ts';

/** A logger whose messages land in `lines`, to check what a user would read. */
export function captureLog() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter(Boolean)
          .map((l: string) => JSON.parse(l).msg as string),
      );
      done();
    },
  });
  return { log: createLogger('info', sink), lines };
}

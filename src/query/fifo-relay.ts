import net from 'node:net';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/**
 * The API's side of an export's FIFO (src/domain/resources/export.ts): its bytes written to the answer
 * in buffers reused from read to read, instead of the fresh 64 KB buffer a stream allocates for each.
 * Every fresh buffer is memory outside V8's heap, and enough of it makes V8 collect the API's whole heap
 * (hundreds of MB): that cost the API more CPU than the passage of the bytes itself, about half of its
 * CPU for a 50 MB CSV (bench exports), CPU that the export's own DuckDB needs on a 2-core machine.
 */

/** A pipe holds 64 KB (Linux's default), so no read returns more. */
const BUFFER_BYTES = 64 * 1024;

export interface FifoRelay {
  /** Resolves once the writer closed its end and every byte was handed to `out`; rejects if cut before. */
  done: Promise<void>;
  /** Closes the read end: the writer's next write fails. */
  stop(): void;
}

/**
 * Relays the FIFO open as `fd` (non-blocking, read-only) into `out`, at `out`'s pace: a full `out`
 * stops the reads until it drains, which fills the pipe and holds the writer. Does not end `out`; stops
 * when `out` closes or has ended (the client went away; a HEAD answer takes no body), and `done` rejects.
 */
export function relayFifo(fd: number, out: Writable): FifoRelay {
  // Buffers written out and free again. Reads stop while `out` holds more than its high-water mark, so
  // only a few are ever made.
  const spare: Buffer[] = [];
  const gone = () => out.destroyed || out.writableEnded;
  const options: net.SocketConstructorOpts & net.ConnectOpts = {
    fd,
    readable: true,
    writable: false,
    onread: {
      // Asked before the first read and after each: the buffer the next read fills.
      buffer: () => spare.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES),
      callback: (length, buffer) => {
        if (gone()) {
          source.destroy();
          return false;
        }
        // Out's until written out (a write keeps the very bytes it was given, not a copy).
        const writing = out.write(buffer.subarray(0, length), () => spare.push(buffer as Buffer));
        if (!writing) out.once('drain', () => source.resume());
        return writing;
      },
    },
  };
  const source = new net.Socket(options);
  out.once('close', () => source.destroy());
  if (gone()) source.destroy();
  // Flowing, so that the end of the FIFO is told as 'end' although its bytes never pass through the stream.
  source.resume();
  return { done: finished(source, { readable: true, writable: false }), stop: () => source.destroy() };
}

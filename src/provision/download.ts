import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** No byte for this long, or no answer to the request for this long: the source is given up. */
const IDLE_TIMEOUT_MS = 30_000;

export class ProvisionError extends Error {}

/**
 * Streams `url` into `dest`, hashing as it goes; refuses the file (and removes it) unless its SHA-256 is
 * `sha256` (null: the caller checks what it extracts instead). A stalled server is cut after
 * IDLE_TIMEOUT_MS without a byte, however long the whole takes.
 */
export async function download(url: string, dest: string, sha256: string | null): Promise<void> {
  const abort = new AbortController();
  let timer = setTimeout(() => abort.abort(), IDLE_TIMEOUT_MS);
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => abort.abort(), IDLE_TIMEOUT_MS);
  };
  const hash = createHash('sha256');
  try {
    const response = await fetch(url, { signal: abort.signal, redirect: 'follow' });
    if (!response.ok || !response.body) throw new ProvisionError(`${url} answered ${response.status}`);
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        touch();
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), meter, fs.createWriteStream(dest));
  } catch (err) {
    await fs.promises.rm(dest, { force: true });
    if (err instanceof ProvisionError) throw err;
    throw new ProvisionError(`${url}: ${abort.signal.aborted ? `no data for ${IDLE_TIMEOUT_MS / 1000} s` : describe(err)}`);
  } finally {
    clearTimeout(timer);
  }
  const actual = hash.digest('hex');
  if (sha256 !== null && actual !== sha256) {
    await fs.promises.rm(dest, { force: true });
    throw new ProvisionError(`${url}: checksum mismatch (sha256 ${actual}, expected ${sha256})`);
  }
}

/** Fetches a small text document (an index page), with the same idle limit. */
export async function fetchText(url: string, accept: string): Promise<{ text: string; contentType: string }> {
  try {
    const response = await fetch(url, { headers: { accept }, signal: AbortSignal.timeout(IDLE_TIMEOUT_MS) });
    if (!response.ok) throw new ProvisionError(`${url} answered ${response.status}`);
    return { text: await response.text(), contentType: response.headers.get('content-type') ?? '' };
  } catch (err) {
    if (err instanceof ProvisionError) throw err;
    throw new ProvisionError(`${url}: ${describe(err)}`);
  }
}

/** The SHA-256 of a file on disk, streamed. */
export async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** fetch's own message is "fetch failed"; the reason (DNS, refused, TLS) is in its cause. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? err.message;
}

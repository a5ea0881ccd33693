import { open } from 'node:fs/promises';

/** How much of a file format and encoding detection look at: enough for magic bytes and a few hundred rows. */
export const HEAD_BYTES = 64 * 1024;

export interface FileHead {
  bytes: Buffer;
  /** Size of the whole file, which may be far larger than `bytes`. */
  size: number;
  /** True when `bytes` is the whole file, so a JSON document or a last line can be judged complete. */
  complete: boolean;
}

export async function readHead(path: string, maxBytes = HEAD_BYTES): Promise<FileHead> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const buffer = Buffer.alloc(Math.min(size, maxBytes));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const bytes = buffer.subarray(0, filled);
    return { bytes, size, complete: filled >= size };
  } finally {
    await file.close();
  }
}

// yauzl 3 ships no types, and @types/yauzl describes version 2 (no promises): the part we use.
declare module 'yauzl' {
  import type { Readable } from 'node:stream';
  export interface Entry {
    fileName: string;
  }
  export interface ZipFile {
    eachEntry(): AsyncIterableIterator<Entry>;
    openReadStreamPromise(entry: Entry): Promise<Readable>;
    close(): void;
  }
  export function openPromise(path: string, options?: { autoClose?: boolean; lazyEntries?: boolean }): Promise<ZipFile>;
}

import fs from 'node:fs/promises';
import type { ObjectStore } from './object-store.ts';

/** The embedded default: files under $ALMANAC_DATA_DIR/files. */
export class LocalObjectStore implements ObjectStore {
  constructor(private readonly dir: string) {}

  async ensureReady() {
    await fs.mkdir(this.dir, { recursive: true });
  }

  async isHealthy() {
    return fs.access(this.dir, fs.constants.W_OK).then(
      () => true,
      () => false,
    );
  }
}

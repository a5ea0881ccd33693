import type { Config } from '../config.ts';
import { LocalObjectStore } from './local.ts';
import type { ObjectStore } from './object-store.ts';
import { S3ObjectStore } from './s3.ts';

export type { ObjectStore } from './object-store.ts';

export const createObjectStore = (storage: Config['storage']): ObjectStore =>
  storage.mode === 's3' ? new S3ObjectStore(storage) : new LocalObjectStore(storage);

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import test from 'ava';
import { loadConfig } from '../../src/config.ts';
import { createObjectStore } from '../../src/storage/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { s3Env } from '../helpers/minio.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp(s3Env());
});
test.after.always(async () => app?.stop());

test('the app started with s3Env() keeps its files in its own MinIO bucket and reports storage ok', async (t) => {
  const { storage } = app.almanac.services;
  t.is(storage.kind, 's3');
  const health = await app.api.get('/api/health');
  t.is(health.body.components.storage, 'ok', health.text);
  await storage.put('probe/app', Readable.from([Buffer.from('stored in minio')]), { contentType: 'text/plain' });
  t.deepEqual(await storage.stat('probe/app'), { size: 15, contentType: 'text/plain' });
});

test('with no S3 settings the store is local, under the data folder, signing with a key kept beside it', async (t) => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-wiring-'));
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }));
  const store = createObjectStore(loadConfig({ ALMANAC_DATA_DIR: dataDir, PUBLIC_URL: 'https://data.example.org' }).storage);
  await store.ensureReady();
  t.is(store.kind, 'local');
  const presigned = await store.presignPut('a/b', { contentType: 'text/csv', expiresInSeconds: 60 });
  t.true(presigned.url.startsWith('https://data.example.org/api/v1/storage/a%2Fb?expires='), presigned.url);
  t.deepEqual((await fs.readdir(dataDir)).sort(), ['files', 'signing.key']);
});

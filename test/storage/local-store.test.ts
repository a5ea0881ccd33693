import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { contentsKey, previewKey, resourcePrefix, sourceKey, uploadKey } from '../../src/storage/keys.ts';
import { LocalObjectStore } from '../../src/storage/local.ts';
import { assertSafeKey, InvalidObjectKeyError } from '../../src/storage/validation.ts';

const publicUrl = 'https://data.example.org';

async function tempDir(t: ExecutionContext) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-local-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

const storeIn = (dir: string, signingSecret?: string) =>
  new LocalObjectStore({ dir: path.join(dir, 'files'), publicUrl, signingSecret, signingKeyFile: path.join(dir, 'signing.key') });

function presentedFrom(url: string, contentType: string) {
  const parsed = new URL(url);
  return {
    key: decodeURIComponent(parsed.pathname.replace(/^\/api\/v1\/storage\//, '')),
    expires: parsed.searchParams.get('expires')!,
    signature: parsed.searchParams.get('signature')!,
    contentType,
  };
}

test('a presigned URL points at Almanac: /api/v1/storage/<encoded key>?expires=<unix seconds>&signature=<hex>', async (t) => {
  const store = storeIn(await tempDir(t));
  await store.ensureReady();
  const key = sourceKey(randomUUID());
  const presigned = await store.presignPut(key, { contentType: 'text/csv', expiresInSeconds: 3600 });
  const match = /^https:\/\/data\.example\.org\/api\/v1\/storage\/([^?]+)\?expires=(\d+)&signature=([0-9a-f]{64})$/.exec(presigned.url);
  t.truthy(match, presigned.url);
  t.is(match![1], encodeURIComponent(key));
  t.is(Number(match![2]) * 1000, presigned.expiresAt.getTime());
  t.deepEqual(presigned.headers, { 'Content-Type': 'text/csv' });
  t.deepEqual(store.verifyPresignedPut(presentedFrom(presigned.url, 'text/csv')), { ok: true });
  // The content type is part of what was signed: a client cannot store something else under that URL.
  t.deepEqual(store.verifyPresignedPut(presentedFrom(presigned.url, 'text/html')), { ok: false, reason: 'bad_signature' });
});

test('without STORAGE_SIGNING_SECRET the first start writes a 0600 signing.key that later starts reuse', async (t) => {
  const dir = await tempDir(t);
  const first = storeIn(dir);
  await first.ensureReady();
  const stats = await fs.stat(path.join(dir, 'signing.key'));
  t.is(stats.mode & 0o777, 0o600);
  t.true((await fs.readFile(path.join(dir, 'signing.key'), 'utf8')).trim().length >= 32);
  const presigned = await first.presignPut('a/b', { contentType: 'text/csv', expiresInSeconds: 60 });

  const restarted = storeIn(dir);
  await restarted.ensureReady();
  t.deepEqual(restarted.verifyPresignedPut(presentedFrom(presigned.url, 'text/csv')), { ok: true });
  t.deepEqual(
    storeIn(await tempDir(t), 'another-secret-of-at-least-32-characters').verifyPresignedPut(presentedFrom(presigned.url, 'text/csv')),
    {
      ok: false,
      reason: 'bad_signature',
    },
  );
});

test('processes starting together on one data folder agree on one generated secret', async (t) => {
  const dir = await tempDir(t);
  const stores = Array.from({ length: 6 }, () => storeIn(dir));
  await Promise.all(stores.map((s) => s.ensureReady()));
  const presigned = await stores[0]!.presignPut('a/b', { contentType: 'text/csv', expiresInSeconds: 60 });
  for (const store of stores) t.deepEqual(store.verifyPresignedPut(presentedFrom(presigned.url, 'text/csv')), { ok: true });
  t.deepEqual(await fs.readdir(dir), ['files', 'signing.key'].sort());
});

test('STORAGE_SIGNING_SECRET, when set, signs the URLs and no key file is written', async (t) => {
  const secret = 'configured-secret-with-32-or-more-chars';
  const dir = await tempDir(t);
  const store = storeIn(dir, secret);
  await store.ensureReady();
  await t.throwsAsync(fs.access(path.join(dir, 'signing.key')));
  const presigned = await store.presignPut('a/b', { contentType: 'text/csv', expiresInSeconds: 60 });
  const other = storeIn(await tempDir(t), secret);
  t.deepEqual(other.verifyPresignedPut(presentedFrom(presigned.url, 'text/csv')), { ok: true });
});

test('a store that has not started refuses to sign rather than sign with no secret', async (t) => {
  const store = storeIn(await tempDir(t));
  await t.throwsAsync(store.presignPut('a/b', { contentType: 'text/csv', expiresInSeconds: 60 }), { message: /ensureReady/ });
});

test('objects are plain files at their key path, and removing a resource leaves no folder behind', async (t) => {
  const dir = await tempDir(t);
  const store = storeIn(dir);
  await store.ensureReady();
  const id = randomUUID();
  await store.put(sourceKey(id), Readable.from([Buffer.from('a,b\n')]), { contentType: 'text/csv' });
  await store.put(previewKey(id, randomUUID()), Readable.from([Buffer.from('PAR1')]));
  t.is(await fs.readFile(path.join(dir, 'files', 'resources', id, 'source'), 'utf8'), 'a,b\n');
  await store.removePrefix(resourcePrefix(id));
  t.deepEqual(await fs.readdir(path.join(dir, 'files')), []);
});

test('escaping keys are refused before anything touches the disk', async (t) => {
  const dir = await tempDir(t);
  const store = storeIn(dir);
  await store.ensureReady();
  for (const key of ['../escape', 'a/../../escape', '/tmp/escape', '..\\escape', 'a//../x']) {
    await t.throwsAsync(store.put(key, Readable.from([Buffer.from('x')])), { instanceOf: InvalidObjectKeyError }, key);
  }
  t.deepEqual((await fs.readdir(dir)).sort(), ['files', 'signing.key']);
  t.deepEqual(await fs.readdir(path.join(dir, 'files')), []);
});

test('the rules accept every key the catalog makes and refuse the rest with a reason', (t) => {
  const id = randomUUID();
  for (const key of [sourceKey(id), uploadKey(id, 'a1b2c3'), previewKey(id, randomUUID()), contentsKey(id), 'a', 'a/b c/ü.csv'])
    t.notThrows(() => assertSafeKey(key), key);
  const reasons: Array<[string, RegExp]> = [
    ['', /empty/],
    ['/abs', /absolute/],
    ['a\\b', /backslash/],
    ['a//b', /empty segment/],
    ['a/', /empty segment/],
    ['a/../b', /".." segment/],
    ['a/./b', /"\." segment/],
    ['a/.sidecar', /starting with a dot/],
    ['x'.repeat(1025), /longer than 1024 bytes/],
  ];
  for (const [key, reason] of reasons) t.throws(() => assertSafeKey(key), { instanceOf: InvalidObjectKeyError, message: reason }, key);
});

test('STORAGE_SIGNING_SECRET must have 32 characters, and a bad one is never echoed', (t) => {
  const error = t.throws(() => loadConfig({ STORAGE_SIGNING_SECRET: 'short-secret-value' }), { instanceOf: ConfigError });
  t.regex(error!.message, /^invalid configuration: STORAGE_SIGNING_SECRET: /);
  t.notRegex(error!.message, /short-secret-value/);

  const config = loadConfig({
    ALMANAC_DATA_DIR: '/srv/almanac',
    PUBLIC_URL: 'https://data.example.org/',
    STORAGE_SIGNING_SECRET: 'x'.repeat(32),
  });
  t.like(config.storage, {
    mode: 'local',
    dir: '/srv/almanac/files',
    publicUrl: 'https://data.example.org',
    signingSecret: 'x'.repeat(32),
    signingKeyFile: '/srv/almanac/signing.key',
  });
});

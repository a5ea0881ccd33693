/**
 * One contract, both object stores: every case below runs against the local filesystem store and against
 * the suite's real MinIO, so code written against one behaves the same on the other.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import { Client } from 'minio';
import { LocalObjectStore } from '../../src/storage/local.ts';
import { ObjectNotFoundError, type ObjectStore } from '../../src/storage/object-store.ts';
import { S3ObjectStore } from '../../src/storage/s3.ts';
import { InvalidObjectKeyError } from '../../src/storage/validation.ts';
import { freshBucketName, suiteMinio } from '../helpers/minio.ts';

interface Harness {
  store: ObjectStore;
  /** Why the store turned a presigned PUT down, in its own words (an S3 error code, the verifier's reason). */
  refusalReason(response: Response): Promise<string>;
  refusals: { tampered: string; expired: string };
  /** Temporary files or unfinished uploads under `prefix`: a failed put must leave none. */
  leftovers(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

async function localHarness(): Promise<Harness> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-store-'));
  // Almanac's own upload route is not part of the store; this minimal one plays it so the contract covers
  // the URL presignPut builds, the verifier and put together, as a browser would use them.
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://localhost');
    const key = decodeURIComponent(url.pathname.replace(/^\/api\/v1\/storage\//, ''));
    const contentType = req.headers['content-type'] ?? '';
    const verdict = store.verifyPresignedPut({
      key,
      expires: url.searchParams.get('expires') ?? '',
      signature: url.searchParams.get('signature') ?? '',
      contentType,
    });
    if (!verdict.ok) {
      req.resume();
      res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ reason: verdict.reason }));
      return;
    }
    store.put(key, req, { contentType }).then(
      () => res.writeHead(200).end(),
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = new LocalObjectStore({ dir: path.join(dir, 'files'), publicUrl, signingKeyFile: path.join(dir, 'signing.key') });
  await store.ensureReady();
  return {
    store,
    refusalReason: async (response) => ((await response.json()) as { reason: string }).reason,
    refusals: { tampered: 'bad_signature', expired: 'expired' },
    async leftovers(prefix) {
      const entries = await fs.readdir(path.join(dir, 'files', prefix), { recursive: true }).catch(() => []);
      // Hidden files other than the content-type sidecars of live objects are unfinished writes.
      const hidden = entries.filter((name) => path.basename(name).startsWith('.'));
      const live = new Set(entries.map((name) => path.join(path.dirname(name), `.${path.basename(name)}.meta.json`)));
      return hidden.filter((name) => !live.has(name));
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

async function s3Harness(): Promise<Harness> {
  const minio = suiteMinio();
  const bucket = freshBucketName('contract');
  const store = new S3ObjectStore({ ...minio, bucket, region: 'us-east-1' });
  await store.ensureReady();
  const url = new URL(minio.endpoint);
  const client = new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey: minio.accessKey,
    secretKey: minio.secretKey,
    region: 'us-east-1',
  });
  return {
    store,
    refusalReason: async (response) => /<Code>([^<]+)<\/Code>/.exec(await response.text())?.[1] ?? '',
    refusals: { tampered: 'SignatureDoesNotMatch', expired: 'AccessDenied' },
    async leftovers(prefix) {
      const uploads: string[] = [];
      // MinIO lists unfinished uploads of one exact key, or of the whole bucket: never by a shorter prefix.
      for await (const upload of client.listIncompleteUploads(bucket, '', true)) uploads.push(upload.key);
      return uploads.filter((key) => key.startsWith(prefix));
    },
    async close() {
      await store.removePrefix('');
      await client.removeBucket(bucket);
    },
  };
}

const harnesses = { local: localHarness, s3: s3Harness };
const running = new Map<string, Harness>();

test.before(async () => {
  for (const [name, start] of Object.entries(harnesses)) running.set(name, await start());
});
test.after.always(async () => {
  for (const harness of running.values()) await harness.close();
});

/** Registers the case once per store; each run gets a key prefix of its own, so cases run in parallel. */
function contract(title: string, run: (t: ExecutionContext, h: Harness, prefix: string) => Promise<void>) {
  for (const name of Object.keys(harnesses)) {
    test(`${name}: ${title}`, (t) => run(t, running.get(name)!, `contract/${randomUUID()}/`));
  }
}

const streamOf = (...chunks: Buffer[]) => Readable.from(chunks);

async function bytesOf(readable: Readable) {
  const chunks: Buffer[] = [];
  for await (const chunk of readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Emits `bytesBefore` bytes, then fails as a dropped client connection would. */
function failingStream(bytesBefore: number) {
  return Readable.from(
    (async function* () {
      for (let sent = 0; sent < bytesBefore; sent += 64 * 1024) yield randomBytes(Math.min(64 * 1024, bytesBefore - sent));
      throw new Error('connection reset by peer');
    })(),
  );
}

contract('put, stat and read round-trip binary bytes and the content type', async (t, { store }, prefix) => {
  const allByteValues = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const body = Buffer.concat([allByteValues, randomBytes(100_000), allByteValues]);
  const key = `${prefix}source`;
  t.deepEqual(await store.put(key, streamOf(body.subarray(0, 1000), body.subarray(1000)), { contentType: 'application/x-parquet' }), {
    size: body.length,
  });
  t.deepEqual(await store.stat(key), { size: body.length, contentType: 'application/x-parquet' });
  t.true((await bytesOf(await store.read(key))).equals(body));
});

contract('an empty object exists, with size 0 and no bytes', async (t, { store }, prefix) => {
  const key = `${prefix}empty`;
  t.deepEqual(await store.put(key, streamOf(), { contentType: 'text/csv' }), { size: 0 });
  t.deepEqual(await store.stat(key), { size: 0, contentType: 'text/csv' });
  t.is((await bytesOf(await store.read(key))).length, 0);
});

contract('a put replaces the object there, bytes and content type', async (t, { store }, prefix) => {
  const key = `${prefix}source`;
  await store.put(key, streamOf(Buffer.from('the first, longer version')), { contentType: 'text/plain' });
  await store.put(key, streamOf(Buffer.from('a,b\n1,2\n')), { contentType: 'text/csv' });
  t.deepEqual(await store.stat(key), { size: 8, contentType: 'text/csv' });
  t.is((await bytesOf(await store.read(key))).toString(), 'a,b\n1,2\n');
});

contract('ranges are inclusive at both ends: first byte, middle, last byte, whole', async (t, { store }, prefix) => {
  const key = `${prefix}digits`;
  await store.put(key, streamOf(Buffer.from('0123456789')));
  const read = async (start: number, end: number) => (await bytesOf(await store.read(key, { start, end }))).toString();
  t.is(await read(0, 0), '0');
  t.is(await read(3, 6), '3456');
  t.is(await read(9, 9), '9');
  t.is(await read(0, 9), '0123456789');
});

contract('a range ending past the end stops at the last byte; one starting past it is a RangeError', async (t, { store }, prefix) => {
  const key = `${prefix}digits`;
  await store.put(key, streamOf(Buffer.from('0123456789')));
  t.is((await bytesOf(await store.read(key, { start: 7, end: 1000 }))).toString(), '789');
  await t.throwsAsync(store.read(key, { start: 10, end: 12 }), { instanceOf: RangeError });
  await t.throwsAsync(store.read(key, { start: 5, end: 4 }), { instanceOf: RangeError });
});

contract('a missing object: read is ObjectNotFoundError naming the key, stat is null', async (t, { store }, prefix) => {
  const key = `${prefix}never-written`;
  const error = await t.throwsAsync(store.read(key), { instanceOf: ObjectNotFoundError });
  t.is(error!.key, key);
  await t.throwsAsync(store.read(key, { start: 0, end: 0 }), { instanceOf: ObjectNotFoundError });
  t.is(await store.stat(key), null);
  // A key that is only the folder of other keys holds no object either.
  await store.put(`${prefix}folder/inside`, streamOf(Buffer.from('x')));
  t.is(await store.stat(`${prefix}folder`), null);
  await t.throwsAsync(store.read(`${prefix}folder`), { instanceOf: ObjectNotFoundError });
});

contract('remove deletes the object, and removing what is not there is fine', async (t, { store }, prefix) => {
  const key = `${prefix}source`;
  await store.put(key, streamOf(Buffer.from('bytes')));
  await store.remove(key);
  t.is(await store.stat(key), null);
  await t.notThrowsAsync(store.remove(key));
  await t.notThrowsAsync(store.remove(`${prefix}never-written`));
  // Removing everything under a folder leaves a usable store: the same key can be written again.
  await store.put(key, streamOf(Buffer.from('again')));
  t.is((await bytesOf(await store.read(key))).toString(), 'again');
});

contract('removePrefix removes every key that starts with the prefix and nothing else', async (t, { store }, prefix) => {
  const keys = ['res/a/source', 'res/a/preview.parquet', 'res/a/deep/er/x', 'res/ab/source', 'res/b/source', 'other'].map(
    (k) => prefix + k,
  );
  await Promise.all(keys.map((key) => store.put(key, streamOf(Buffer.from(key)), { contentType: 'text/plain' })));
  const present = async () =>
    (await Promise.all(keys.map(async (key) => ((await store.stat(key)) ? key.slice(prefix.length) : null)))).filter(Boolean);

  await store.removePrefix(`${prefix}res/a/`);
  t.deepEqual(await present(), ['res/ab/source', 'res/b/source', 'other']);
  // Like S3, a prefix is a string prefix, not a folder: `res/a` also matches `res/ab/...`.
  await store.removePrefix(`${prefix}res/a`);
  t.deepEqual(await present(), ['res/b/source', 'other']);
  await t.notThrowsAsync(store.removePrefix(`${prefix}nothing/here/`));
  t.is((await bytesOf(await store.read(`${prefix}res/b/source`))).toString(), `${prefix}res/b/source`);
});

contract(
  'list yields every object under the prefix with its size and modification time, and nothing else',
  async (t, { store }, prefix) => {
    const before = Date.now() - 2000; // file systems and S3 keep whole seconds, or coarser
    const keys = ['res/a/source', 'res/a/uploads/s1', 'res/ab/source', 'other'].map((k) => prefix + k);
    await Promise.all(keys.map((key, i) => store.put(key, streamOf(Buffer.alloc(i + 1)))));
    const listed = [];
    for await (const object of store.list(`${prefix}res/a/`)) listed.push(object);
    t.deepEqual(listed.map((o) => [o.key.slice(prefix.length), o.size]).sort(), [
      ['res/a/source', 1],
      ['res/a/uploads/s1', 2],
    ]);
    for (const object of listed) t.true(object.lastModified.getTime() >= before && object.lastModified.getTime() <= Date.now() + 2000);
    const nothing = [];
    for await (const object of store.list(`${prefix}nothing/here/`)) nothing.push(object);
    t.deepEqual(nothing, []);
  },
);

contract('a source that fails mid-way rejects the put, keeps the object there and leaves nothing behind', async (t, h, prefix) => {
  const key = `${prefix}source`;
  await h.store.put(key, streamOf(Buffer.from('the old version')), { contentType: 'text/plain' });
  // Small enough for one request, then past the two parts S3 reads before it starts a multipart upload.
  for (const bytesBefore of [1000, 40 * 1024 * 1024]) {
    await t.throwsAsync(h.store.put(key, failingStream(bytesBefore), { contentType: 'text/csv' }), { message: 'connection reset by peer' });
    t.deepEqual(await h.store.stat(key), { size: 15, contentType: 'text/plain' });
    t.is((await bytesOf(await h.store.read(key))).toString(), 'the old version');
    await t.throwsAsync(h.store.put(`${prefix}new-${bytesBefore}`, failingStream(bytesBefore)));
    t.is(await h.store.stat(`${prefix}new-${bytesBefore}`), null);
  }
  t.deepEqual(await h.leftovers(prefix), []);
});

contract('a multi-MB body streams in whole, and ranges across part boundaries read back right', async (t, { store }, prefix) => {
  const key = `${prefix}large`;
  const total = 40 * 1024 * 1024 + 12345;
  const chunkBytes = 256 * 1024;
  const sent = createHash('sha256');
  // Generated as it is read, so the test holds no copy of the body: only the store can hand it back.
  const source = Readable.from(
    (async function* () {
      for (let offset = 0; offset < total; offset += chunkBytes) {
        const chunk = randomBytes(Math.min(chunkBytes, total - offset));
        sent.update(chunk);
        yield chunk;
      }
    })(),
  );
  t.deepEqual(await store.put(key, source, { contentType: 'text/csv' }), { size: total });
  t.deepEqual(await store.stat(key), { size: total, contentType: 'text/csv' });

  const received = createHash('sha256');
  let receivedBytes = 0;
  for await (const chunk of await store.read(key)) {
    received.update(chunk as Buffer);
    receivedBytes += (chunk as Buffer).length;
  }
  t.is(receivedBytes, total);
  t.is(received.digest('hex'), sent.digest('hex'));

  const boundary = 16 * 1024 * 1024;
  const whole = await bytesOf(await store.read(key));
  const across = await bytesOf(await store.read(key, { start: boundary - 3, end: boundary + 2 }));
  t.true(across.equals(whole.subarray(boundary - 3, boundary + 3)));
  const tail = await bytesOf(await store.read(key, { start: total - 1, end: total - 1 }));
  t.true(tail.equals(whole.subarray(total - 1)));
});

contract('a presigned PUT with plain fetch stores the body under the promised content type', async (t, { store }, prefix) => {
  const key = `${prefix}upload/source`;
  const before = Date.now();
  const presigned = await store.presignPut(key, { contentType: 'text/csv', expiresInSeconds: 600 });
  t.is(presigned.method, 'PUT');
  t.deepEqual(presigned.headers, { 'Content-Type': 'text/csv' });
  t.true(Math.abs(presigned.expiresAt.getTime() - (before + 600_000)) < 2000, presigned.expiresAt.toISOString());

  const response = await fetch(presigned.url, { method: presigned.method, headers: presigned.headers, body: 'a,b\n1,2\n' });
  t.true(response.ok, `${response.status} ${await response.clone().text()}`);
  t.deepEqual(await store.stat(key), { size: 8, contentType: 'text/csv' });
  t.is((await bytesOf(await store.read(key))).toString(), 'a,b\n1,2\n');
});

contract('a presigned URL with a changed signature or key is refused and stores nothing', async (t, h, prefix) => {
  const key = `${prefix}upload/target`;
  const presigned = await h.store.presignPut(key, { contentType: 'text/csv', expiresInSeconds: 600 });
  const put = (url: string) => fetch(url, { method: 'PUT', headers: presigned.headers, body: 'x' });

  const url = new URL(presigned.url);
  const signatureParam = [...url.searchParams.keys()].find((name) => /signature$/i.test(name))!;
  const signature = url.searchParams.get(signatureParam)!;
  url.searchParams.set(signatureParam, (signature[0] === '0' ? '1' : '0') + signature.slice(1));
  const forged = await put(url.href);
  t.is(forged.status, 403);
  t.is(await h.refusalReason(forged), h.refusals.tampered);

  t.is(presigned.url.split('target').length, 2, 'the key appears once in the URL');
  const otherKey = await put(presigned.url.replace('target', 'taRget'));
  t.is(otherKey.status, 403);
  t.is(await h.refusalReason(otherKey), h.refusals.tampered);

  t.is(await h.store.stat(key), null);
  t.is(await h.store.stat(`${prefix}upload/taRget`), null);
});

contract('an expired presigned URL is refused and stores nothing', async (t, h, prefix) => {
  const key = `${prefix}upload/late`;
  const presigned = await h.store.presignPut(key, { contentType: 'text/csv', expiresInSeconds: 1 });
  // S3 counts expiry in whole seconds from X-Amz-Date: a second's margin past expiresAt.
  await new Promise((resolve) => setTimeout(resolve, presigned.expiresAt.getTime() - Date.now() + 1100));
  const response = await fetch(presigned.url, { method: 'PUT', headers: presigned.headers, body: 'x' });
  t.is(response.status, 403);
  t.is(await h.refusalReason(response), h.refusals.expired);
  t.is(await h.store.stat(key), null);
});

contract('keys that could leave the store or are malformed are refused by every method', async (t, { store }, prefix) => {
  const bad = [
    '',
    '../escape',
    `${prefix}../../escape`,
    '/etc/passwd',
    'a\\b',
    `${prefix}a//b`,
    `${prefix}./b`,
    `${prefix}trailing/`,
    `${prefix}.hidden`,
    `${prefix}nul\u0000`,
  ];
  for (const key of bad) {
    await t.throwsAsync(store.put(key, streamOf(Buffer.from('x'))), { instanceOf: InvalidObjectKeyError }, JSON.stringify(key));
    await t.throwsAsync(store.stat(key), { instanceOf: InvalidObjectKeyError }, JSON.stringify(key));
    await t.throwsAsync(store.read(key), { instanceOf: InvalidObjectKeyError }, JSON.stringify(key));
    await t.throwsAsync(store.remove(key), { instanceOf: InvalidObjectKeyError }, JSON.stringify(key));
    await t.throwsAsync(store.presignPut(key, { contentType: 'text/csv', expiresInSeconds: 60 }), { instanceOf: InvalidObjectKeyError });
  }
  await t.throwsAsync(store.removePrefix('../'), { instanceOf: InvalidObjectKeyError });
  await t.throwsAsync(store.removePrefix('/'), { instanceOf: InvalidObjectKeyError });
});

contract('presigned URLs live from 1 second to 7 days, as in S3', async (t, { store }, prefix) => {
  for (const expiresInSeconds of [0, 7 * 24 * 3600 + 1, 1.5]) {
    await t.throwsAsync(store.presignPut(`${prefix}x`, { contentType: 'text/csv', expiresInSeconds }), { instanceOf: RangeError });
  }
  await t.notThrowsAsync(store.presignPut(`${prefix}x`, { contentType: 'text/csv', expiresInSeconds: 7 * 24 * 3600 }));
});

contract('the store reports itself healthy', async (t, { store }) => {
  t.true(await store.isHealthy());
});

import { createHash } from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { TestUser } from '../helpers/client.ts';
import { newUploadSlot } from '../helpers/upload-slot.ts';

/**
 * Receive deadlines per route (issue 16, gap 5): an upload may take as long as it keeps sending, a stalled
 * one is cut, and every other request must arrive whole within REQUEST_TIMEOUT. The limits are shrunk
 * (2 s and 1 s) so that "slow" fits in a test.
 */

let app: TestApp;
let editor: TestUser;
let resourceId: string;

test.before(async () => {
  app = await startTestApp({ REQUEST_TIMEOUT: '2s', UPLOAD_IDLE_TIMEOUT: '1s' });
  editor = await app.api.newUser('deadlines-editor');
  resourceId = await newUploadSlot(app, 'deadlines-data', { editor, format: 'BIN' });
});
test.after.always(() => app?.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends a request whose body `write` produces at its own pace; resolves with the answer, or how the connection ended. */
async function slowRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  write: (req: http.ClientRequest) => Promise<void>,
) {
  const url = new URL(path, app.url);
  const req = http.request(url, { method, headers: { Authorization: `Bearer ${editor.token}`, ...headers } });
  const answered = new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('error', (err) => resolve({ error: err.message }));
  });
  await write(req).catch(() => undefined); // a cut connection stops the writer
  return answered;
}

test('an upload sent slowly for longer than REQUEST_TIMEOUT completes, whole and hashed, while it keeps sending', async (t) => {
  const chunk = Buffer.alloc(512 * 1024, 7);
  const chunks = 48; // 24 MB over about 5 s, more than twice the 2 s request deadline
  const hash = createHash('sha256');
  for (let i = 0; i < chunks; i++) hash.update(chunk);
  const started = Date.now();
  const reply = await slowRequest(
    'POST',
    `/api/v1/resources/${resourceId}/upload`,
    { 'Content-Type': 'application/octet-stream', 'Content-Length': String(chunk.length * chunks) },
    async (req) => {
      for (let i = 0; i < chunks; i++) {
        if (!req.write(chunk)) await once(req, 'drain');
        await sleep(100);
      }
      req.end();
    },
  );
  t.true(Date.now() - started > 2000, 'the upload outlasted REQUEST_TIMEOUT');
  t.true('status' in reply && reply.status === 200, JSON.stringify(reply).slice(0, 300));
  t.like((await app.api.get(`/api/v1/resources/${resourceId}`)).body, { size: chunk.length * chunks, hash: hash.digest('hex') });
});

test.serial('an upload that stalls for UPLOAD_IDLE_TIMEOUT is cut with 408, and the file before it stays', async (t) => {
  const before = (await app.api.get(`/api/v1/resources/${resourceId}`)).body;
  const reply = await slowRequest(
    'POST',
    `/api/v1/resources/${resourceId}/upload`,
    { 'Content-Type': 'application/octet-stream', 'Content-Length': String(10 * 1024 * 1024) },
    async (req) => {
      req.write(Buffer.alloc(64 * 1024, 1));
      await sleep(4000); // then nothing: the client went quiet
      req.destroy();
    },
  );
  if ('status' in reply) {
    t.is(reply.status, 408, reply.body);
    t.like(JSON.parse(reply.body), { code: 'request_timeout' });
  } else t.pass(`the connection was closed: ${reply.error}`);
  const after = (await app.api.get(`/api/v1/resources/${resourceId}`)).body;
  t.like(after, { size: before.size, hash: before.hash });
  const keys: string[] = [];
  for await (const object of app.almanac.services.storage.list(`resources/${resourceId}/`)) keys.push(object.key);
  t.is(keys.filter((key) => key.includes('/files/')).length, before.size === null ? 0 : 1, keys.join(', '));
});

test('a JSON body that does not arrive whole within REQUEST_TIMEOUT is 408 request_timeout', async (t) => {
  const body = JSON.stringify({ name: 'never-created', ownerOrg: 'deadlines-org' });
  const reply = await slowRequest(
    'POST',
    '/api/v1/packages',
    { 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
    async (req) => {
      req.write(body.slice(0, 5));
      await sleep(3000);
      req.end(body.slice(5));
    },
  );
  t.true('status' in reply, JSON.stringify(reply));
  if ('status' in reply) {
    t.is(reply.status, 408, reply.body);
    t.like(JSON.parse(reply.body), { code: 'request_timeout', status: 408 });
  }
  t.is((await app.api.get('/api/v1/packages/never-created', { token: app.adminToken })).status, 404);
});

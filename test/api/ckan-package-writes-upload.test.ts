import { createHash } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import test, { type ExecutionContext } from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { ACTION, ckanGet, ckanPost, resultOf } from '../helpers/ckan.ts';

/**
 * resource_create's file as an upload (issue 29 §1): streamed from the multipart body into storage, so it
 * may take as long as it keeps sending (the request deadline is the upload's idle timeout, as for
 * POST /resources/{id}/upload), and one that stalls is cut with nothing left behind. The limits are
 * shrunk (2 s and 1 s) so that "slow" fits in a test.
 */

let app: TestApp;
let datasetId: string;

test.before(async () => {
  // The idle cut at 2 s, not 1: on a loaded machine (the suite beside a benchmark) the slow upload's 100 ms
  // gaps once stretched past 1 s and were cut; the stalled upload below is quiet for 4 s.
  app = await startTestApp({ REQUEST_TIMEOUT: '2s', UPLOAD_IDLE_TIMEOUT: '2s', UPLOAD_MAX_BYTES: '24MB' });
  const org = await app.api.post('/api/v1/organizations', { name: 'up-org' }, app.sysadmin);
  if (org.status !== 201) throw new Error(org.text);
  datasetId = resultOf(
    await ckanPost(app.api, 'package_create', { name: 'up-data', owner_org: 'up-org', license_id: 'cc-by' }, app.sysadmin),
  ).id;
});
test.after.always(() => app?.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BOUNDARY = 'ckan-upload-boundary';

/** A resource_create call in multipart/form-data whose file part `write` sends at its own pace. */
async function slowCreate(name: string, write: (req: http.ClientRequest) => Promise<void>) {
  const req = http.request(new URL(`${ACTION}/resource_create`, app.url), {
    method: 'POST',
    headers: { Authorization: app.adminToken, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  const answered = new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('error', (err) => resolve({ error: err.message }));
  });
  const field = (key: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`;
  req.write(
    field('package_id', datasetId) +
      field('name', name) +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="upload"; filename="${name}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  await write(req).catch(() => undefined);
  return answered;
}

test('a file sent slowly for longer than REQUEST_TIMEOUT is stored whole and hashed while it keeps sending', async (t) => {
  const chunk = Buffer.alloc(512 * 1024, 7);
  const chunks = 40; // 20 MB over about 4 s, twice the 2 s request deadline
  const hash = createHash('sha256');
  for (let i = 0; i < chunks; i++) hash.update(chunk);
  const started = Date.now();
  const reply = await slowCreate('slow', async (req) => {
    for (let i = 0; i < chunks; i++) {
      if (!req.write(chunk)) await once(req, 'drain');
      await sleep(100);
    }
    req.end(`\r\n--${BOUNDARY}--\r\n`);
  });
  t.true(Date.now() - started > 2000, 'the upload outlasted REQUEST_TIMEOUT');
  t.true('status' in reply && reply.status === 200, JSON.stringify(reply).slice(0, 300));
  const created = JSON.parse((reply as { body: string }).body).result;
  t.like(created, { name: 'slow', url_type: 'upload', size: chunk.length * chunks, hash: hash.digest('hex') });
});

test.serial('a file that stalls for UPLOAD_IDLE_TIMEOUT is cut, and no resource is left without it', async (t) => {
  const before = resultOf(await ckanGet(app.api, 'package_show', { id: 'up-data' }, app.sysadmin)).num_resources;
  const reply = await slowCreate('stalled', async (req) => {
    req.write(Buffer.alloc(64 * 1024, 1));
    await sleep(4000); // then nothing: the client went quiet
    req.destroy();
  });
  if ('status' in reply) t.is(reply.status, 408, reply.body);
  else t.pass(`the connection was closed: ${reply.error}`);
  // The 408 goes out at the cut; the action then finds its file stream broken and removes what it made.
  const resources = async () => resultOf(await ckanGet(app.api, 'package_show', { id: 'up-data' }, app.sysadmin)).resources;
  await until('the resource made for the file is gone with it', async () => (await resources()).length === before, 10_000);
  t.false((await resources()).some((r: { name: string }) => r.name === 'stalled'));
  const keys: string[] = [];
  for await (const object of app.almanac.services.storage.list('resources/')) keys.push(object.key);
  // Serial tests run first: no file of any resource is stored yet, and none of the cut one's bytes stays.
  t.deepEqual(keys, []);
});

/** resource_create with `form`, which must be refused as too large (413, CKAN's failure envelope). */
async function refusedAsTooLarge(t: ExecutionContext, form: FormData) {
  const res = await fetch(`${app.url}${ACTION}/resource_create`, {
    method: 'POST',
    body: form,
    headers: { Authorization: app.adminToken },
  });
  const body = await res.json();
  t.is(res.status, 413, JSON.stringify(body));
  t.false(body.success);
}

test('a form field larger than 1 MB is refused, not cut short', async (t) => {
  const form = new FormData();
  form.set('package_id', datasetId);
  form.set('description', 'x'.repeat((1 << 20) + 1));
  form.set('upload', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'small.csv');
  await refusedAsTooLarge(t, form);
  const resources = resultOf(await ckanGet(app.api, 'package_show', { id: 'up-data' }, app.sysadmin)).resources;
  t.false(resources.some((r: { description: string | null }) => (r.description?.length ?? 0) > 1 << 20));
});

test('form fields larger than the body limit together are refused, whatever each one’s size', async (t) => {
  const form = new FormData();
  form.set('package_id', datasetId);
  for (let i = 0; i < 3; i++) form.set(`field_${i}`, 'x'.repeat(600_000));
  await refusedAsTooLarge(t, form);
});

test('resource_update with a file that cannot be stored leaves the resource as it was, a link still', async (t) => {
  const link = resultOf(
    await ckanPost(
      app.api,
      'resource_create',
      { package_id: datasetId, name: 'kept', url: 'https://files.example/kept.csv' },
      app.sysadmin,
    ),
  );
  const form = new FormData();
  form.set('id', link.id);
  form.set('name', 'replaced');
  // Past the upload limit (24 MB here), which is known only once that many bytes have come.
  form.set('upload', new Blob([Buffer.alloc(24 * 1024 * 1024 + 4096, 1)], { type: 'text/csv' }), 'big.csv');
  const res = await fetch(`${app.url}${ACTION}/resource_update`, {
    method: 'POST',
    body: form,
    headers: { Authorization: app.adminToken },
  });
  t.is(res.status, 413, await res.text());
  t.like(resultOf(await ckanGet(app.api, 'resource_show', { id: link.id }, app.sysadmin)), {
    name: 'kept',
    url: 'https://files.example/kept.csv',
  });
  t.not(resultOf(await ckanGet(app.api, 'resource_show', { id: link.id }, app.sysadmin)).url_type, 'upload');
});

test('package_revise with a file for a new resource is refused, naming it, and changes nothing; it never succeeds without the file', async (t) => {
  const form = new FormData();
  form.set('match__name', 'up-data');
  form.set('update__title', 'Revised');
  form.set('update__resources__extend', '[{"name": "attached"}]');
  form.set('update__resources__-1__upload', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'new.csv');
  const res = await fetch(`${app.url}${ACTION}/package_revise`, { method: 'POST', body: form, headers: { Authorization: app.adminToken } });
  const body = await res.json();
  t.is(res.status, 409, JSON.stringify(body));
  t.is(body.error.__type, 'Validation Error');
  t.truthy(body.error['update__resources__-1__upload']);
  t.not(resultOf(await ckanGet(app.api, 'package_show', { id: 'up-data' }, app.sysadmin)).title, 'Revised');
});

import { gzipSync } from 'node:zlib';
import http from 'node:http';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { as, type TestUser } from '../helpers/client.ts';
import { settledPipeline } from '../helpers/pipeline.ts';

/**
 * Hostile input beyond SQL (issue 16): every request here is refused with a clear 4xx, or, for files,
 * processed without harm, and none leaves a record or an object behind. The SQL corpus is
 * test/api/query-security.test.ts.
 */

let app: TestApp;
let editor: TestUser;

test.before(async () => {
  app = await startTestApp();
  editor = await app.api.newUser('hostile-editor');
  const admin = { token: app.adminToken };
  await app.api.post('/api/v1/organizations', { name: 'hostile-org' }, admin);
  await app.api.post('/api/v1/organizations/hostile-org/members', { user: editor.id, role: 'editor' }, admin);
});
test.after.always(() => app?.stop());

/** A raw request, so that bodies and headers can be anything at all. */
function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer) {
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    const req = http.request(
      new URL(path, app.url),
      { method, headers: { Authorization: `Bearer ${editor.token}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const json = (body: Buffer | string, headers: Record<string, string> = {}) =>
  raw('POST', '/api/v1/packages', { 'Content-Type': 'application/json', ...headers }, Buffer.from(body));

/** None of these names made a dataset (the tests run side by side, so counting all would race). */
async function noneCreated(t: import('ava').ExecutionContext, names: string[]) {
  for (const name of names)
    t.is((await app.api.get(`/api/v1/packages/${encodeURIComponent(name)}`, { token: app.adminToken })).status, 404, name);
}

const clearProblem = (
  t: import('ava').ExecutionContext,
  reply: { status: number; type: string; body: string },
  status: number,
  code: string,
) => {
  t.is(reply.status, status, reply.body.slice(0, 300));
  t.regex(reply.type, /^application\/problem\+json/);
  t.like(JSON.parse(reply.body), { status, code });
};

test('JSON bodies: too large (413), nested a million deep, invalid UTF-8 and a gzip bomb are refused clearly and create nothing', async (t) => {
  clearProblem(t, await json(`{"name":"big","notes":"${'x'.repeat(2 * 1024 * 1024)}"}`), 413, 'payload_too_large');
  const deep = `{"name":"deep","extras":${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
  clearProblem(t, await json(deep), 400, 'bad_request');
  const invalidUtf8 = Buffer.concat([
    Buffer.from('{"name":"bad-utf8","title":"'),
    Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
    Buffer.from('"}'),
  ]);
  const utf8 = await json(invalidUtf8);
  t.true(utf8.status === 400 || utf8.status === 422, `${utf8.status} ${utf8.body.slice(0, 200)}`);
  // 1 GB of spaces compresses to about a megabyte: the limit must hold on what it inflates to.
  const bomb = gzipSync(Buffer.concat([Buffer.from('{"name":"bomb","notes":"'), Buffer.alloc(64 * 1024 * 1024, 0x20), Buffer.from('"}')]));
  clearProblem(t, await json(bomb, { 'Content-Encoding': 'gzip' }), 413, 'payload_too_large');
  await noneCreated(t, ['big', 'deep', 'bad-utf8', 'bomb']);
});

test('NUL characters, confusable and traversing names are refused with 422 or 404, never a 500', async (t) => {
  for (const body of [
    { name: 'nul-title', title: 'a\u0000b' },
    { name: 'nul\u0000name' },
    { name: 'аlmanac' }, // the first letter is Cyrillic
    { name: '../../etc/passwd' },
    { name: 'ok-name', tags: ['a\u0000b'] },
  ]) {
    // Valid but for the one hostile field.
    const reply = await app.api.post('/api/v1/packages', { ownerOrg: 'hostile-org', licenseId: 'cc-by-4.0', ...body }, as(editor));
    t.true(reply.status === 400 || reply.status === 422, `${JSON.stringify(body)}: ${reply.status} ${reply.text.slice(0, 200)}`);
  }
  for (const path of ['/api/v1/packages/..%2F..%2Fetc%2Fpasswd', '/api/v1/resources/..%2Fsecret', '/api/v1/organizations/%2e%2e']) {
    const reply = await app.api.get(path, as(editor));
    t.true(reply.status === 404 || reply.status === 400 || reply.status === 422, `${path}: ${reply.status}`);
  }
  const put = await raw(
    'PUT',
    '/api/v1/storage/..%2F..%2Fsigning.key?expires=9999999999&signature=00',
    { 'Content-Type': 'text/plain' },
    Buffer.from('x'),
  );
  t.true(put.status === 403 || put.status === 404, `${put.status} ${put.body}`);
  await noneCreated(t, ['nul-title', 'ok-name']);
});

test('headers of 64 KB are refused by the server before any handler runs', async (t) => {
  const reply = await raw('GET', '/api/v1/packages', { 'X-Padding': 'x'.repeat(64 * 1024) }).catch((err: Error) => ({
    status: 0,
    type: '',
    body: err.message,
  }));
  t.true(reply.status === 431 || reply.status === 400 || reply.status === 0, `${reply.status}`);
  t.is((await app.api.get('/api/health')).status, 200, 'the server is unharmed');
});

test('a CSV of 100,000 columns and a gzip bomb named .csv go through the pipeline without harm, and the service stays up', async (t) => {
  const dataset = await app.api.post(
    '/api/v1/packages',
    {
      name: 'hostile-files',
      ownerOrg: 'hostile-org',
      licenseId: 'cc-by-4.0',
      resources: [
        { urlType: 'upload', name: 'Wide', format: 'CSV' },
        { urlType: 'upload', name: 'Bomb', format: 'CSV' },
      ],
    },
    as(editor),
  );
  t.is(dataset.status, 201, dataset.text);
  const [wide, bomb] = dataset.body.resources as Array<{ id: string }>;
  const header = Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',');
  const upload = (id: string, body: Buffer) => raw('POST', `/api/v1/resources/${id}/upload`, { 'Content-Type': 'text/csv' }, body);
  t.is((await upload(wide!.id, Buffer.from(`${header}\n${header}\n`))).status, 200);
  t.is((await upload(bomb!.id, gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x41)))).status, 200);
  const wideStatus = await settledPipeline(app.api, wide!.id, as(editor));
  t.true(['succeeded', 'failed'].includes(wideStatus.status));
  if (wideStatus.status === 'failed') t.notRegex(String(wideStatus.error), /at \w+ \(|\/work\/|node_modules/, 'no internals in the reason');
  const bombStatus = await settledPipeline(app.api, bomb!.id, as(editor));
  t.is(bombStatus.status, 'succeeded', 'a compressed file is recognised and never inflated');
  t.like((await app.api.get(`/api/v1/resources/${bomb!.id}/schema`)).body, { queryable: false });
  t.is((await app.api.get('/api/health')).status, 200);
});

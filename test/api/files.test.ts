import { createHash } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';
import { s3Env } from '../helpers/minio.ts';
import { isProblem } from '../helpers/problem.ts';
import { settledPipeline as settledRun } from '../helpers/pipeline.ts';

/**
 * The bytes of upload resources over HTTP (spec §3 files, DESIGN §4 pipeline): proxied and presigned
 * uploads, downloads, previews, text, limits, who may do what, and what the pipeline records. Every test
 * runs twice, once per object store: the local store and the suite's MinIO.
 */

type Store = 'local' | 'minio';
const STORES: Store[] = ['local', 'minio'];

type User = Awaited<ReturnType<TestApp['api']['newUser']>>;

/** One running app and the users its tests share; each test gives them roles only in orgs it creates. */
interface Site {
  store: Store;
  app: TestApp;
  editor: User;
  member: User;
  outsider: User;
}

/** `main` runs with the defaults; `strict` with tiny limits (1 KB uploads, 3 s upload URLs, 512 B previews). */
const sites = {} as Record<Store, { main: Site; strict: Site }>;

const STRICT_ENV = { UPLOAD_MAX_BYTES: '1kb', UPLOAD_URL_TTL_SECONDS: '3', PREVIEW_MAX_BYTES: '512b' };
const UPLOAD_MAX = 1024;
const PREVIEW_MAX = 512;

async function startSite(store: Store, env: Record<string, string>): Promise<Site> {
  const app = await startTestApp({ ...(store === 'minio' ? s3Env() : {}), ...env });
  const [editor, member, outsider] = await Promise.all(
    ['files-editor', 'files-member', 'files-outsider'].map((name) => app.api.newUser(name)),
  );
  return { store, app, editor: editor!, member: member!, outsider: outsider! };
}

test.before(async () => {
  await Promise.all(
    STORES.map(async (store) => {
      const [main, strict] = await Promise.all([startSite(store, {}), startSite(store, STRICT_ENV)]);
      sites[store] = { main, strict };
    }),
  );
});
test.after.always(async () => {
  await Promise.all(Object.values(sites).flatMap((s) => [s.main.app.stop(), s.strict.app.stop()]));
});

const V1 = '/api/v1';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const PIPELINE_DEADLINE_MS = 60_000;
const UPLOAD_STEPS = ['inspect', 'preview', 'text', 'index'];

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tests in this file run concurrently: every name they create carries its own counter. */
let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

const as = (user: User): Auth => ({ token: user.token });
const bearer = (user?: User): Record<string, string> => (user ? { Authorization: `Bearer ${user.token}` } : {});

// --- Fixtures ------------------------------------------------------------------------------------

/** Five columns, one of each type, with a null in a float and an integer column. */
const MEASUREMENTS = Buffer.from('id,price,active,label,score\n1,1.5,true,alpha,10\n2,2.25,false,beta,\n3,,true,gamma,-7\n');
const MEASUREMENTS_SCHEMA = {
  rowCount: 3,
  previewTruncated: false,
  columns: [
    { name: 'id', type: 'integer', nullable: false, nullCount: 0, stats: { min: '1', max: '3' } },
    { name: 'price', type: 'float', nullable: true, nullCount: 1, stats: { min: 1.5, max: 2.25 } },
    { name: 'active', type: 'boolean', nullable: false, nullCount: 0 },
    { name: 'label', type: 'string', nullable: false, nullCount: 0 },
    { name: 'score', type: 'integer', nullable: true, nullCount: 1, stats: { min: '-7', max: '10' } },
  ],
};

const CITIES_TEXT = 'name,city\ncafé,Zürich\nnaïve,Brüssel\n';
const CITIES_LATIN1 = Buffer.from(CITIES_TEXT, 'latin1');
const CITIES_UTF16LE_BOM = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(CITIES_TEXT, 'utf16le')]);

/** A CSV of exactly `size` bytes. */
function csvOfSize(size: number) {
  let text = 'n,label\n';
  let i = 0;
  while (text.length + 40 < size) {
    i++;
    text += `${i},row-${i}\n`;
  }
  const last = `${i + 1},`;
  text += `${last}${'z'.repeat(size - text.length - last.length - 1)}\n`;
  const bytes = Buffer.from(text);
  if (bytes.length !== size) throw new Error(`csvOfSize(${size}) made ${bytes.length} bytes`);
  return bytes;
}

/** Bytes that are no text at all: NULs and control characters throughout, and no magic number. */
function binaryGarbage() {
  const bytes = Buffer.alloc(600);
  for (let i = 0; i < bytes.length; i++) bytes[i] = i % 3 === 0 ? 0 : (i * 37 + 11) & 0xff;
  return bytes;
}

/** A body sent with Transfer-Encoding: chunked (no Content-Length), produced as it is read. */
function chunkedBody(total: number, chunk = 256) {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(chunk, total - sent);
      controller.enqueue(new Uint8Array(n).fill(0x61));
      sent += n;
    },
  });
}

// --- HTTP helpers --------------------------------------------------------------------------------

interface RawReply {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
  body: any;
}

/** fetch without following redirects, with the body kept as bytes (and parsed as JSON when it is). */
async function call(url: string, init: RequestInit = {}): Promise<RawReply> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, text, body };
}

const resourceUrl = (site: Site, id: string, what?: string) => `${site.app.url}${V1}/resources/${id}${what ? `/${what}` : ''}`;

function uploadRaw(
  site: Site,
  id: string,
  bytes: Buffer,
  options: { user?: User | null; contentType?: string; headers?: Record<string, string> } = {},
) {
  const user = options.user === undefined ? site.editor : (options.user ?? undefined);
  return call(resourceUrl(site, id, 'upload'), {
    method: 'POST',
    headers: { ...bearer(user), 'Content-Type': options.contentType ?? 'text/csv', ...options.headers },
    body: new Uint8Array(bytes),
  });
}

function uploadMultipart(site: Site, id: string, bytes: Buffer, filename: string, type = 'text/csv') {
  const form = new FormData();
  form.append('description', 'a field before the file, which the upload ignores');
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), filename);
  return call(resourceUrl(site, id, 'upload'), { method: 'POST', headers: bearer(site.editor), body: form });
}

const read = (site: Site, id: string, what: string, options: { user?: User; headers?: Record<string, string> } = {}) =>
  call(resourceUrl(site, id, what), { headers: { ...bearer(options.user), ...options.headers } });

/** Keys of the resource's objects by kind: its bytes (completed, or an upload session's), its previews, its text. */
const OBJECT_KINDS = {
  source: /\/(source|uploads\/[^/]+|files\/[^/]+)$/,
  preview: /\/previews\/[^/]+\.parquet$/,
  contents: /\/contents\.txt$/,
};

/** The resource's stored object of a kind, or null when it has none. */
async function stat(site: Site, id: string, kind: keyof typeof OBJECT_KINDS = 'source') {
  for await (const object of site.app.almanac.services.storage.list(`resources/${id}/`)) {
    if (OBJECT_KINDS[kind].test(object.key)) return object;
  }
  return null;
}

/** The resources of a new dataset of the site's editor, in a new org where the member is a member. */
async function newDataset(t: ExecutionContext, site: Site, resources: object[], options: { private?: boolean } = {}) {
  const admin: Auth = { token: site.app.adminToken };
  const org = await site.app.api.post(`${V1}/organizations`, { name: unique('files-org') }, admin);
  t.is(org.status, 201, org.text);
  for (const [user, role] of [
    [site.editor, 'editor'],
    [site.member, 'member'],
  ] as const) {
    const res = await site.app.api.post(`${V1}/organizations/${org.body.name}/members`, { user: user.id, role }, admin);
    t.is(res.status, 201, res.text);
  }
  const res = await site.app.api.post(
    `${V1}/packages`,
    {
      name: unique('files-ds'),
      title: 'Files test',
      ownerOrg: org.body.name,
      licenseId: 'cc-by-4.0',
      private: options.private ?? false,
      resources,
    },
    as(site.editor),
  );
  t.is(res.status, 201, res.text);
  return res.body.resources as Array<{ id: string; url: string | null; urlType: string }>;
}

const uploadSlot = (name: string, format = 'csv') => ({ urlType: 'upload', name, format });

/** One upload resource of a new dataset. */
async function newUploadResource(t: ExecutionContext, site: Site, options: { private?: boolean; format?: string; name?: string } = {}) {
  const [resource] = await newDataset(t, site, [uploadSlot(options.name ?? unique('File'), options.format)], options);
  return resource!.id;
}

interface PipelineStatus {
  resourceId: string;
  status: string;
  steps: Array<{ name: string; status: string; startedAt: string | null; finishedAt: string | null; error: string | null }>;
  workflowId: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
}

/** Polls pipeline-status until the run has ended (test/helpers/pipeline.ts). */
const settledPipeline = (site: Site, id: string, user: User = site.editor): Promise<PipelineStatus> =>
  settledRun(site.app.api, id, as(user));

/** A whole successful run: every step succeeded, each with its own timestamps. */
function assertSucceeded(t: ExecutionContext, id: string, status: PipelineStatus, steps = UPLOAD_STEPS) {
  t.like(status, { resourceId: id, status: 'succeeded', error: null, workflowId: `pipeline-${id}` }, JSON.stringify(status));
  t.deepEqual(
    status.steps.map((s) => [s.name, s.status, s.error]),
    steps.map((name) => [name, 'succeeded', null]),
  );
  t.regex(status.startedAt ?? '', ISO);
  t.regex(status.finishedAt ?? '', ISO);
  for (const step of status.steps) {
    t.regex(step.startedAt ?? '', ISO, step.name);
    t.regex(step.finishedAt ?? '', ISO, step.name);
    t.true(Date.parse(step.startedAt!) <= Date.parse(step.finishedAt!), step.name);
    t.true(Date.parse(status.startedAt!) <= Date.parse(step.startedAt!), step.name);
    t.true(Date.parse(step.finishedAt!) <= Date.parse(status.finishedAt!), step.name);
  }
}

/** Flips the last hex digit of a query parameter. */
function withFlippedDigit(url: URL, param: string) {
  const copy = new URL(url);
  const value = copy.searchParams.get(param)!;
  copy.searchParams.set(param, value.slice(0, -1) + (value.endsWith('0') ? '1' : '0'));
  return copy.href;
}

// --- The tests, once per store -------------------------------------------------------------------

for (const store of STORES) {
  const main = () => sites[store].main;
  const strict = () => sites[store].strict;
  const isLocal = store === 'local';
  /** The store's refusal of a presigned PUT: a problem from Almanac (local) or S3's XML error (MinIO). */
  const refusedPut = (t: ExecutionContext, res: RawReply, localCode: string, s3Pattern: RegExp) => {
    if (isLocal) isProblem(t, res, 403, localCode);
    else {
      t.is(res.status, 403, res.text);
      t.regex(res.text, s3Pattern);
    }
  };

  // 1. Proxied upload, raw body ------------------------------------------------------------------

  test(`[${store}] POST /upload with a raw text/csv body records size, sha256, mimetype and the download URL, and the pipeline makes the schema`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    const res = await uploadRaw(site, id, MEASUREMENTS);
    t.is(res.status, 200, res.text);
    t.like(res.body, {
      id,
      urlType: 'upload',
      size: MEASUREMENTS.length,
      hash: sha256(MEASUREMENTS),
      mimetype: 'text/csv',
      url: `${site.app.url}/api/v1/resources/${id}/download`,
    });
    t.is((await stat(site, id))?.size, MEASUREMENTS.length);

    assertSucceeded(t, id, await settledPipeline(site, id));

    const schema = await site.app.api.get(`${V1}/resources/${id}/schema`);
    t.is(schema.status, 200, schema.text);
    t.deepEqual(schema.body, { id, queryable: true, schema: MEASUREMENTS_SCHEMA });
    // The pipeline's record is on the resource too; the detected format agrees with the declared one.
    const resource = await site.app.api.get(`${V1}/resources/${id}`);
    t.like(resource.body, { format: 'CSV', mimetype: 'text/csv', size: MEASUREMENTS.length, extras: { queryable: true } });
  });

  // 2. Proxied upload, multipart ------------------------------------------------------------------

  test(`[${store}] POST /upload as multipart/form-data stores the file part, and its file name comes back in the download's Content-Disposition`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site, { name: 'Station readings' });
    const res = await uploadMultipart(site, id, MEASUREMENTS, 'station-readings.csv');
    t.is(res.status, 200, res.text);
    t.like(res.body, {
      id,
      size: MEASUREMENTS.length,
      hash: sha256(MEASUREMENTS),
      mimetype: 'text/csv',
      url: `${site.app.url}/api/v1/resources/${id}/download`,
    });

    const download = await read(site, id, 'download');
    t.is(download.status, 200);
    t.deepEqual(download.bytes, MEASUREMENTS, 'the multipart framing is not part of the stored bytes');
    t.is(download.headers.get('content-disposition'), `attachment; filename="station-readings.csv"; filename*=UTF-8''station-readings.csv`);
    assertSucceeded(t, id, await settledPipeline(site, id));
  });

  test(`[${store}] a multipart file name in UTF-8 ("données 2024.csv", as browsers and fetch send it) comes back intact in Content-Disposition`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    const res = await uploadMultipart(site, id, MEASUREMENTS, 'données 2024.csv');
    t.is(res.status, 200, res.text);
    const download = await read(site, id, 'download');
    t.is(download.status, 200);
    t.is(download.headers.get('content-disposition'), `attachment; filename="donn_es 2024.csv"; filename*=UTF-8''donn%C3%A9es%202024.csv`);
    await settledPipeline(site, id);
  });

  test(`[${store}] a multipart body without a file part is 400 upload_missing_file and stores nothing`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    const form = new FormData();
    form.append('note', 'no file here');
    const res = await call(resourceUrl(site, id, 'upload'), { method: 'POST', headers: bearer(site.editor), body: form });
    isProblem(t, res, 400, 'upload_missing_file');
    t.is(await stat(site, id), null);
    t.like((await site.app.api.get(`${V1}/resources/${id}`)).body, { url: null, size: null });
  });

  // 3. Presigned uploads --------------------------------------------------------------------------

  test(`[${store}] presigned upload: upload-url, a PUT with exactly the given headers, then upload-complete records the bytes and runs the pipeline; repeating upload-complete is safe`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    const before = Date.now();
    const issued = await site.app.api.post(
      `${V1}/resources/${id}/upload-url`,
      { filename: 'presigned.csv', contentType: 'text/csv', size: MEASUREMENTS.length },
      as(site.editor),
    );
    t.is(issued.status, 200, issued.text);
    t.deepEqual(Object.keys(issued.body).sort(), ['expiresAt', 'headers', 'method', 'url']);
    t.is(issued.body.method, 'PUT');
    t.deepEqual(issued.body.headers, { 'Content-Type': 'text/csv' });
    t.regex(issued.body.expiresAt, ISO);
    const expiresAt = Date.parse(issued.body.expiresAt);
    t.true(
      expiresAt >= before + 3599_000 - 1000 && expiresAt <= Date.now() + 3600_000,
      `UPLOAD_URL_TTL_SECONDS defaults to 3600: ${issued.body.expiresAt}`,
    );
    t.true(issued.body.url.startsWith(isLocal ? `${site.app.url}/api/v1/storage/` : process.env.TEST_S3_ENDPOINT!), issued.body.url);

    const put = await call(issued.body.url, { method: 'PUT', headers: issued.body.headers, body: MEASUREMENTS });
    t.true(put.status >= 200 && put.status < 300, `${put.status} ${put.text}`);

    const done = await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor));
    t.is(done.status, 200, done.text);
    t.like(done.body, {
      id,
      size: MEASUREMENTS.length,
      hash: sha256(MEASUREMENTS),
      mimetype: 'text/csv',
      url: `${site.app.url}/api/v1/resources/${id}/download`,
    });
    const first = await settledPipeline(site, id);
    assertSucceeded(t, id, first);
    t.like((await site.app.api.get(`${V1}/resources/${id}/schema`)).body, { id, queryable: true, schema: { rowCount: 3 } });

    // Again: the same object is measured again and the pipeline runs again.
    const again = await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor));
    t.is(again.status, 200, again.text);
    t.like(again.body, { id, size: MEASUREMENTS.length, hash: sha256(MEASUREMENTS), mimetype: 'text/csv' });
    const second = await settledPipeline(site, id);
    assertSucceeded(t, id, second);
    t.true(Date.parse(second.startedAt!) >= Date.parse(first.finishedAt!), 'a new run, not the first one seen again');

    const download = await read(site, id, 'download');
    t.is(download.status, 200);
    t.deepEqual(download.bytes, MEASUREMENTS);
    t.is(download.headers.get('content-disposition'), `attachment; filename="presigned.csv"; filename*=UTF-8''presigned.csv`);
  });

  test(`[${store}] asking for an upload URL and never using it leaves the current file's name and type as they were`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    const up = await uploadRaw(site, id, MEASUREMENTS, { headers: { 'Content-Disposition': 'attachment; filename="current.csv"' } });
    t.is(up.status, 200, up.text);
    const xlsx = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    const issued = await site.app.api.post(
      `${V1}/resources/${id}/upload-url`,
      { filename: 'replacement.xlsx', contentType: xlsx, size: 5000 },
      as(site.editor),
    );
    t.is(issued.status, 200, issued.text);

    const download = await read(site, id, 'download');
    t.is(download.status, 200);
    t.deepEqual(download.bytes, MEASUREMENTS);
    t.is(download.headers.get('content-disposition'), `attachment; filename="current.csv"; filename*=UTF-8''current.csv`);
    t.regex(download.headers.get('content-type') ?? '', /^text\/csv\b/);
    await settledPipeline(site, id);
  });

  test(`[${store}] a tampered presigned URL (signature digit, key or expiry changed) is 403 and stores nothing`, async (t) => {
    const site = main();
    const [target, other] = await newDataset(t, site, [uploadSlot('Target'), uploadSlot('Other')]);
    const issued = await site.app.api.post(
      `${V1}/resources/${target!.id}/upload-url`,
      { filename: 'x.csv', contentType: 'text/csv', size: MEASUREMENTS.length },
      as(site.editor),
    );
    t.is(issued.status, 200, issued.text);
    const url = new URL(issued.body.url);
    const [signatureParam, expiresParam] = isLocal ? ['signature', 'expires'] : ['X-Amz-Signature', 'X-Amz-Expires'];
    t.truthy(url.searchParams.get(signatureParam), url.href);
    t.truthy(url.searchParams.get(expiresParam), url.href);
    t.is(url.href.split(target!.id).length, 2, 'the key names the resource once');
    const longer = new URL(url);
    longer.searchParams.set(expiresParam, String(Number(url.searchParams.get(expiresParam)) + 600));

    const tampered = {
      signature: withFlippedDigit(url, signatureParam),
      key: url.href.replace(target!.id, other!.id),
      expires: longer.href,
    };
    for (const [what, href] of Object.entries(tampered)) {
      const res = await call(href, { method: 'PUT', headers: issued.body.headers, body: MEASUREMENTS });
      t.log(what);
      refusedPut(t, res, 'invalid_signature', /<Code>(SignatureDoesNotMatch|AccessDenied)<\/Code>/);
    }
    if (isLocal) {
      // The local store's signature also covers the promised Content-Type.
      const res = await call(url.href, { method: 'PUT', headers: { 'Content-Type': 'text/html' }, body: MEASUREMENTS });
      isProblem(t, res, 403, 'invalid_signature');
    }
    t.is(await stat(site, target!.id), null);
    t.is(await stat(site, other!.id), null);
    isProblem(t, await site.app.api.post(`${V1}/resources/${target!.id}/upload-complete`, undefined, as(site.editor)), 409, 'conflict');

    // The URL as issued still works: the changes, not the URL, were refused.
    const put = await call(url.href, { method: 'PUT', headers: issued.body.headers, body: MEASUREMENTS });
    t.true(put.status >= 200 && put.status < 300, `${put.status} ${put.text}`);
    t.is((await stat(site, target!.id))?.size, MEASUREMENTS.length);
    t.is(await stat(site, other!.id), null);
  });

  test(`[${store}] a presigned URL used after UPLOAD_URL_TTL_SECONDS=3 is 403${isLocal ? ' upload_url_expired' : ''} and stores nothing`, async (t) => {
    const site = strict();
    const id = await newUploadResource(t, site);
    const issued = await site.app.api.post(
      `${V1}/resources/${id}/upload-url`,
      { filename: 'late.csv', contentType: 'text/csv', size: MEASUREMENTS.length },
      as(site.editor),
    );
    t.is(issued.status, 200, issued.text);
    const expiresAt = Date.parse(issued.body.expiresAt);
    t.true(expiresAt <= Date.now() + 3000, issued.body.expiresAt);
    await sleep(Math.max(0, expiresAt - Date.now()) + 1100);
    const res = await call(issued.body.url, { method: 'PUT', headers: issued.body.headers, body: MEASUREMENTS });
    refusedPut(t, res, 'upload_url_expired', /expired/i);
    t.is(await stat(site, id), null);
    isProblem(t, await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor)), 409, 'conflict');
  });

  // 4. Download -----------------------------------------------------------------------------------

  test(`[${store}] GET /download: an upload's bytes as an attachment with its file name and type, a Range as 206; a link is a 302 to its URL`, async (t) => {
    const site = main();
    const linkUrl = `https://example.org/files/${unique('remote')}.csv`;
    const [upload, link] = await newDataset(t, site, [
      uploadSlot('Relevés'),
      { urlType: 'link', name: 'Remote', url: linkUrl, format: 'csv' },
    ]);
    const up = await uploadRaw(site, upload!.id, MEASUREMENTS, {
      headers: { 'Content-Disposition': `attachment; filename*=UTF-8''relev%C3%A9s.csv` },
    });
    t.is(up.status, 200, up.text);

    const whole = await read(site, upload!.id, 'download');
    t.is(whole.status, 200);
    t.deepEqual(whole.bytes, MEASUREMENTS);
    t.is(whole.headers.get('content-disposition'), `attachment; filename="relev_s.csv"; filename*=UTF-8''relev%C3%A9s.csv`);
    t.regex(whole.headers.get('content-type') ?? '', /^text\/csv\b/);
    t.is(whole.headers.get('content-length'), String(MEASUREMENTS.length));
    t.is(whole.headers.get('accept-ranges'), 'bytes');

    const head = await read(site, upload!.id, 'download', { headers: { Range: 'bytes=0-9' } });
    t.is(head.status, 206);
    t.is(head.headers.get('content-range'), `bytes 0-9/${MEASUREMENTS.length}`);
    t.deepEqual(head.bytes, MEASUREMENTS.subarray(0, 10));

    const redirect = await read(site, link!.id, 'download');
    t.is(redirect.status, 302);
    t.is(redirect.headers.get('location'), linkUrl);
    await settledPipeline(site, upload!.id);
  });

  // 5. Preview ------------------------------------------------------------------------------------

  test(`[${store}] GET /preview serves byte ranges (206, resumable 7 bytes at a time, suffix ranges, 416 past the end) under a sandbox CSP with nosniff`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    t.is((await uploadRaw(site, id, MEASUREMENTS)).status, 200);
    const size = MEASUREMENTS.length;

    const whole = await read(site, id, 'preview');
    t.is(whole.status, 200);
    t.deepEqual(whole.bytes, MEASUREMENTS);
    t.regex(whole.headers.get('content-security-policy') ?? '', /(^|;\s*)sandbox(;|$)/);
    t.is(whole.headers.get('x-content-type-options'), 'nosniff');
    t.regex(whole.headers.get('content-disposition') ?? '', /^inline;/);

    const parts: Buffer[] = [];
    for (let start = 0; start < size; start += 7) {
      const end = Math.min(start + 6, size - 1);
      const part = await read(site, id, 'preview', { headers: { Range: `bytes=${start}-${start + 6}` } });
      t.is(part.status, 206, `bytes=${start}-${start + 6}`);
      t.is(part.headers.get('content-range'), `bytes ${start}-${end}/${size}`);
      t.is(part.headers.get('x-content-type-options'), 'nosniff');
      t.regex(part.headers.get('content-security-policy') ?? '', /(^|;\s*)sandbox(;|$)/);
      parts.push(part.bytes);
    }
    t.deepEqual(Buffer.concat(parts), MEASUREMENTS, 'consecutive ranges resume to the whole file');

    const suffix = await read(site, id, 'preview', { headers: { Range: 'bytes=-5' } });
    t.is(suffix.status, 206);
    t.is(suffix.headers.get('content-range'), `bytes ${size - 5}-${size - 1}/${size}`);
    t.deepEqual(suffix.bytes, MEASUREMENTS.subarray(size - 5));

    const past = await read(site, id, 'preview', { headers: { Range: `bytes=${size}-` } });
    isProblem(t, past, 416, 'range_not_satisfiable');
    t.is(past.headers.get('content-range'), `bytes */${size}`);
    await settledPipeline(site, id);
  });

  test(`[${store}] with PREVIEW_MAX_BYTES=512b the preview and text stop at 512 bytes and the schema is cut at a row end with previewTruncated`, async (t) => {
    const site = strict();
    const id = await newUploadResource(t, site);
    // 8 + 9×23 + 31×24 = 959 bytes; byte 512 falls inside row 22, rows 1–21 end at byte 503.
    let text = 'n,label\n';
    for (let i = 1; i <= 40; i++) text += `${i},${'x'.repeat(20)}\n`;
    const bytes = Buffer.from(text);
    t.is(bytes.length, 959);
    t.is((await uploadRaw(site, id, bytes)).status, 200);
    assertSucceeded(t, id, await settledPipeline(site, id));

    const preview = await read(site, id, 'preview');
    t.is(preview.status, 200);
    t.deepEqual(preview.bytes, bytes.subarray(0, PREVIEW_MAX));
    const tail = await read(site, id, 'preview', { headers: { Range: 'bytes=500-' } });
    t.is(tail.status, 206);
    t.is(tail.headers.get('content-range'), `bytes 500-511/${PREVIEW_MAX}`);
    const textRes = await read(site, id, 'text');
    t.is(textRes.status, 200);
    t.is(textRes.text, text.slice(0, PREVIEW_MAX));
    // The download is the whole file.
    t.deepEqual((await read(site, id, 'download')).bytes, bytes);

    const schema = await site.app.api.get(`${V1}/resources/${id}/schema`);
    t.like(schema.body, { id, queryable: true, schema: { rowCount: 21, previewTruncated: true } });
    t.deepEqual(schema.body.schema.columns[0], {
      name: 'n',
      type: 'integer',
      nullable: false,
      nullCount: 0,
      stats: { min: '1', max: '21' },
    });
  });

  // 6. Text ---------------------------------------------------------------------------------------

  /** Uploads `bytes`, waits for the pipeline, and checks GET /text is them as UTF-8 (CITIES_TEXT). */
  const textOf = async (t: ExecutionContext, site: Site, bytes: Buffer) => {
    const id = await newUploadResource(t, site);
    t.is((await uploadRaw(site, id, bytes)).status, 200);
    assertSucceeded(t, id, await settledPipeline(site, id));
    const res = await read(site, id, 'text');
    t.is(res.status, 200, res.text);
    t.is(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    t.is(res.text, CITIES_TEXT);
    return { id, res };
  };

  test(`[${store}] GET /text of a windows-1252 CSV is UTF-8 text with café`, async (t) => {
    const site = main();
    const { id, res } = await textOf(t, site, CITIES_LATIN1);
    t.true(res.text.includes('café'));
    t.regex(res.headers.get('content-security-policy') ?? '', /(^|;\s*)sandbox(;|$)/);
    t.like((await site.app.api.get(`${V1}/resources/${id}/schema`)).body, { queryable: true, schema: { rowCount: 2 } });
  });

  test(`[${store}] GET /text of a UTF-16LE CSV with a BOM is UTF-8 text without the BOM`, async (t) => {
    await textOf(t, main(), CITIES_UTF16LE_BOM);
  });

  test(`[${store}] the download and preview of a windows-1252 CSV do not label its bytes charset=utf-8`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    t.is((await uploadRaw(site, id, CITIES_LATIN1)).status, 200);
    await settledPipeline(site, id);
    for (const what of ['download', 'preview']) {
      const res = await read(site, id, what);
      t.is(res.status, 200);
      t.deepEqual(res.bytes, CITIES_LATIN1);
      const type = res.headers.get('content-type') ?? '';
      t.regex(type, /^text\/csv\b/, what);
      t.notRegex(type, /charset=utf-8/i, `${what}: ${type} tells a browser to read windows-1252 bytes as UTF-8`);
    }
  });

  // 7. Limits -------------------------------------------------------------------------------------

  test(`[${store}] with UPLOAD_MAX_BYTES=1kb a 2 KB raw upload is 413 upload_too_large and nothing is stored; exactly 1 KB is accepted`, async (t) => {
    const site = strict();
    const [big, exact] = await newDataset(t, site, [uploadSlot('Too big'), uploadSlot('Just fits')]);
    const res = await uploadRaw(site, big!.id, csvOfSize(2048));
    isProblem(t, res, 413, 'upload_too_large');
    isProblem(t, await read(site, big!.id, 'download'), 404, 'not_found');
    t.is(await stat(site, big!.id), null);
    t.like((await site.app.api.get(`${V1}/resources/${big!.id}`)).body, { url: null, size: null, hash: null });

    const fits = csvOfSize(UPLOAD_MAX);
    const ok = await uploadRaw(site, exact!.id, fits);
    t.is(ok.status, 200, ok.text);
    t.like(ok.body, { size: UPLOAD_MAX, hash: sha256(fits) });
    await settledPipeline(site, exact!.id);
  });

  test(`[${store}] with UPLOAD_MAX_BYTES=1kb upload-url for 2048 bytes is 413 upload_too_large, for 1024 bytes 200`, async (t) => {
    const site = strict();
    const id = await newUploadResource(t, site);
    const tooBig = await site.app.api.post(
      `${V1}/resources/${id}/upload-url`,
      { filename: 'big.csv', contentType: 'text/csv', size: 2048 },
      as(site.editor),
    );
    isProblem(t, tooBig, 413, 'upload_too_large');
    const fits = await site.app.api.post(
      `${V1}/resources/${id}/upload-url`,
      { filename: 'ok.csv', contentType: 'text/csv', size: UPLOAD_MAX },
      as(site.editor),
    );
    t.is(fits.status, 200, fits.text);
  });

  test(`[${store}] with UPLOAD_MAX_BYTES=1kb a chunked upload without Content-Length is cut off with 413, and the file uploaded before stays`, async (t) => {
    const site = strict();
    const [fresh, earlier] = await newDataset(t, site, [uploadSlot('Fresh'), uploadSlot('Earlier')]);
    const small = csvOfSize(100);
    t.is((await uploadRaw(site, earlier!.id, small)).status, 200);
    await settledPipeline(site, earlier!.id);

    for (const id of [fresh!.id, earlier!.id]) {
      const res = await call(resourceUrl(site, id, 'upload'), {
        method: 'POST',
        headers: { ...bearer(site.editor), 'Content-Type': 'text/csv' },
        body: chunkedBody(4096),
        duplex: 'half',
      } as RequestInit);
      isProblem(t, res, 413, 'upload_too_large');
    }
    t.is(await stat(site, fresh!.id), null);
    isProblem(t, await read(site, fresh!.id, 'download'), 404, 'not_found');

    t.is((await stat(site, earlier!.id))?.size, small.length);
    const download = await read(site, earlier!.id, 'download');
    t.is(download.status, 200);
    t.deepEqual(download.bytes, small);
    t.like((await site.app.api.get(`${V1}/resources/${earlier!.id}`)).body, { size: small.length, hash: sha256(small) });
  });

  test(`[${store}] with UPLOAD_MAX_BYTES=1kb a presigned PUT of 2 KB on a URL issued for 100 bytes is never recorded`, async (t) => {
    const site = strict();
    const id = await newUploadResource(t, site);
    const issued = await site.app.api.post(
      `${V1}/resources/${id}/upload-url`,
      { filename: 'sneaky.csv', contentType: 'text/csv', size: 100 },
      as(site.editor),
    );
    t.is(issued.status, 200, issued.text);
    const put = await call(issued.body.url, { method: 'PUT', headers: issued.body.headers, body: csvOfSize(2048) });
    if (isLocal) {
      isProblem(t, put, 413, 'upload_too_large');
      t.is(await stat(site, id), null);
    }
    // S3 takes whatever size is PUT to a presigned URL: upload-complete is where the limit must hold.
    const done = await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor));
    t.true(done.status === 409 || done.status === 413, `upload-complete: ${done.status} ${done.text}`);
    t.like((await site.app.api.get(`${V1}/resources/${id}`)).body, { url: null, size: null, hash: null });
    isProblem(t, await read(site, id, 'download'), 404, 'not_found');
  });

  // 8. Authorization ------------------------------------------------------------------------------

  test(`[${store}] upload, upload-url, upload-complete and run-pipeline: anonymous 401; a non-member 404 on a private dataset, 403 on a public one; an org member 403`, async (t) => {
    const site = main();
    const privateId = await newUploadResource(t, site, { private: true });
    const publicId = await newUploadResource(t, site, { private: false });
    const intent = { filename: 'x.csv', contentType: 'text/csv', size: 10 };
    const attempts = (id: string, user?: User) =>
      [
        ['upload', () => uploadRaw(site, id, MEASUREMENTS, { user: user ?? null })],
        [
          'upload-url',
          () =>
            call(resourceUrl(site, id, 'upload-url'), {
              method: 'POST',
              headers: { ...bearer(user), 'Content-Type': 'application/json' },
              body: JSON.stringify(intent),
            }),
        ],
        ['upload-complete', () => call(resourceUrl(site, id, 'upload-complete'), { method: 'POST', headers: bearer(user) })],
        ['run-pipeline', () => call(resourceUrl(site, id, 'run-pipeline'), { method: 'POST', headers: bearer(user) })],
      ] as const;
    const expect = async (id: string, user: User | undefined, status: number, code: string) => {
      for (const [what, attempt] of attempts(id, user)) {
        t.log(`${what} by ${user?.username ?? 'anonymous'}`);
        isProblem(t, await attempt(), status, code);
      }
    };
    await expect(privateId, undefined, 401, 'unauthenticated');
    await expect(publicId, undefined, 401, 'unauthenticated');
    await expect(privateId, site.outsider, 404, 'not_found');
    await expect(publicId, site.outsider, 403, 'forbidden');
    await expect(publicId, site.member, 403, 'forbidden');
    await expect(privateId, site.member, 403, 'forbidden');
    // None of it stored anything.
    t.is(await stat(site, privateId), null);
    t.is(await stat(site, publicId), null);
    t.like((await site.app.api.get(`${V1}/resources/${publicId}`)).body, { url: null, size: null });
  });

  test(`[${store}] a link resource takes no file (409 on upload-url and upload); upload-complete and run-pipeline before any bytes are 409`, async (t) => {
    const site = main();
    const [link, upload] = await newDataset(t, site, [
      { urlType: 'link', name: 'Remote', url: `https://example.org/${unique('link')}.csv`, format: 'csv' },
      uploadSlot('Not yet'),
    ]);
    isProblem(
      t,
      await site.app.api.post(
        `${V1}/resources/${link!.id}/upload-url`,
        { filename: 'x.csv', contentType: 'text/csv', size: 10 },
        as(site.editor),
      ),
      409,
      'conflict',
    );
    isProblem(t, await uploadRaw(site, link!.id, MEASUREMENTS), 409, 'conflict');
    t.is(await stat(site, link!.id), null);
    isProblem(t, await site.app.api.post(`${V1}/resources/${upload!.id}/upload-complete`, undefined, as(site.editor)), 409, 'conflict');
    isProblem(t, await site.app.api.post(`${V1}/resources/${upload!.id}/run-pipeline`, undefined, as(site.editor)), 409, 'conflict');
    t.like((await site.app.api.get(`${V1}/resources/${upload!.id}/pipeline-status`)).body, {
      resourceId: upload!.id,
      status: 'none',
      steps: [],
    });
  });

  test(`[${store}] download, preview, text, schema and pipeline-status of a private dataset's resource: 404 for anonymous and outsiders, 200 for an org member`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site, { private: true });
    t.is((await uploadRaw(site, id, MEASUREMENTS)).status, 200);
    assertSucceeded(t, id, await settledPipeline(site, id, site.member));
    for (const what of ['download', 'preview', 'text', 'schema', 'pipeline-status']) {
      t.log(what);
      isProblem(t, await read(site, id, what), 404, 'not_found');
      isProblem(t, await read(site, id, what, { user: site.outsider }), 404, 'not_found');
      const ok = await read(site, id, what, { user: site.member });
      t.is(ok.status, 200, ok.text);
    }
    t.deepEqual((await read(site, id, 'download', { user: site.member })).bytes, MEASUREMENTS);
  });

  // 9. Pipeline failures --------------------------------------------------------------------------

  test(`[${store}] binary garbage declared as CSV: the pipeline succeeds with preview and text skipped, the schema is unqueryable and /text is 400 not_text`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    const garbage = binaryGarbage();
    const up = await uploadRaw(site, id, garbage);
    t.is(up.status, 200, up.text);
    t.like(up.body, { size: garbage.length, hash: sha256(garbage) });
    const status = await settledPipeline(site, id);
    t.like(status, { status: 'succeeded', error: null });
    t.deepEqual(
      status.steps.map((s) => [s.name, s.status, s.error]),
      [
        ['inspect', 'succeeded', null],
        ['preview', 'skipped', null],
        ['text', 'skipped', null],
        ['index', 'succeeded', null],
      ],
    );
    t.deepEqual((await site.app.api.get(`${V1}/resources/${id}/schema`)).body, { id, queryable: false, schema: null });
    isProblem(t, await read(site, id, 'text'), 400, 'not_text');
    // The bytes are still served as they are.
    t.deepEqual((await read(site, id, 'download')).bytes, garbage);
  });

  test(`[${store}] an empty file declared as CSV: the pipeline fails at preview with "The file is empty", and run-pipeline is 202 and runs it again`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    const up = await uploadRaw(site, id, Buffer.alloc(0));
    t.is(up.status, 200, up.text);
    t.like(up.body, { size: 0, hash: sha256(Buffer.alloc(0)) });
    const expectFailed = (status: PipelineStatus) => {
      t.like(status, { status: 'failed', error: 'The file is empty' });
      t.regex(status.finishedAt ?? '', ISO);
      t.deepEqual(
        status.steps.map((s) => [s.name, s.status, s.error]),
        [
          ['inspect', 'succeeded', null],
          ['preview', 'failed', 'The file is empty'],
          ['text', 'pending', null],
          ['index', 'pending', null],
        ],
      );
    };
    const first = await settledPipeline(site, id);
    expectFailed(first);
    t.deepEqual((await site.app.api.get(`${V1}/resources/${id}/schema`)).body, { id, queryable: false, schema: null });

    const rerun = await site.app.api.post(`${V1}/resources/${id}/run-pipeline`, undefined, as(site.editor));
    t.is(rerun.status, 202, rerun.text);
    t.like(rerun.body, { resourceId: id, workflowId: `pipeline-${id}` });
    t.true(['queued', 'running'].includes(rerun.body.status), rerun.text);
    const second = await settledPipeline(site, id);
    expectFailed(second);
    t.true(Date.parse(second.startedAt!) >= Date.parse(first.finishedAt!), 'a new run');
    // An empty file is still downloadable, as zero bytes.
    const download = await read(site, id, 'download');
    t.is(download.status, 200);
    t.is(download.bytes.length, 0);
  });

  // 10. Deletion ----------------------------------------------------------------------------------

  test(`[${store}] DELETE of an upload resource removes its source, preview and contents files`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    t.is((await uploadRaw(site, id, MEASUREMENTS)).status, 200);
    assertSucceeded(t, id, await settledPipeline(site, id));
    t.truthy(await stat(site, id, 'source'));
    t.truthy(await stat(site, id, 'preview'));
    t.truthy(await stat(site, id, 'contents'));

    const res = await site.app.api.delete(`${V1}/resources/${id}`, as(site.editor));
    t.is(res.status, 204, res.text);
    t.is(await stat(site, id, 'source'), null);
    t.is(await stat(site, id, 'preview'), null);
    t.is(await stat(site, id, 'contents'), null);
    isProblem(t, await read(site, id, 'download'), 404, 'not_found');
  });

  test(`[${store}] deleting a resource while its pipeline builds the preview leaves no file behind`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    const rows = ['id,amount,label,flag'];
    for (let i = 0; i < 250_000; i++) rows.push(`${i},${(i * 7) % 1000}.25,label-${i % 97},${i % 2 === 0}`);
    const big = Buffer.from(`${rows.join('\n')}\n`);
    t.is((await uploadRaw(site, id, big)).status, 200);

    // Catch the run inside the preview step, then delete.
    const deadline = Date.now() + PIPELINE_DEADLINE_MS;
    let caught = false;
    while (!caught && Date.now() < deadline) {
      const status = (await site.app.api.get(`${V1}/resources/${id}/pipeline-status`)).body as PipelineStatus;
      const preview = status.steps.find((s) => s.name === 'preview');
      if (preview?.status === 'running') caught = true;
      else if (status.status === 'succeeded' || status.status === 'failed') {
        // Too quick to catch: run it again.
        t.is((await site.app.api.post(`${V1}/resources/${id}/run-pipeline`, undefined, as(site.editor))).status, 202);
      } else await sleep(10);
    }
    t.true(caught, 'the preview step was seen running');
    const res = await site.app.api.delete(`${V1}/resources/${id}`, as(site.editor));
    t.is(res.status, 204, res.text);

    // Wait for the run to end, however it ends, then look at what is left.
    const handle = site.app.almanac.services.jobs.client.workflow.getHandle(`pipeline-${id}`);
    await Promise.race([handle.result().catch(() => undefined), sleep(PIPELINE_DEADLINE_MS)]);
    t.is(await stat(site, id, 'source'), null);
    t.is(await stat(site, id, 'preview'), null, 'the preview step wrote its Parquet after the resource and its files were deleted');
    t.is(await stat(site, id, 'contents'), null);
  });

  // 11. Re-upload ---------------------------------------------------------------------------------

  test(`[${store}] a re-upload replaces the bytes, the hash and the schema`, async (t) => {
    const site = main();
    const id = await newUploadResource(t, site);
    const first = Buffer.from('a,b\n1,x\n2,y\n');
    const second = Buffer.from('a,b,c\n1,x,0.5\n2,y,1.5\n3,z,2.5\n');
    t.is((await uploadRaw(site, id, first)).status, 200);
    assertSucceeded(t, id, await settledPipeline(site, id));
    const before = await site.app.api.get(`${V1}/resources/${id}/schema`);
    t.deepEqual(
      before.body.schema.columns.map((c: { name: string }) => c.name),
      ['a', 'b'],
    );
    t.is(before.body.schema.rowCount, 2);

    const again = await uploadRaw(site, id, second);
    t.is(again.status, 200, again.text);
    t.like(again.body, { size: second.length, hash: sha256(second) });
    assertSucceeded(t, id, await settledPipeline(site, id));
    const after = await site.app.api.get(`${V1}/resources/${id}/schema`);
    t.like(after.body, { id, queryable: true, schema: { rowCount: 3, previewTruncated: false } });
    t.deepEqual(
      after.body.schema.columns.map((c: { name: string; type: string }) => [c.name, c.type]),
      [
        ['a', 'integer'],
        ['b', 'string'],
        ['c', 'float'],
      ],
    );
    t.deepEqual((await read(site, id, 'download')).bytes, second);
    // Both files are stored: the first stays as the resource's version 1 (issue 30 §2).
    const sizes: number[] = [];
    for await (const object of site.app.almanac.services.storage.list(`resources/${id}/`)) {
      if (OBJECT_KINDS.source.test(object.key)) sizes.push(object.size);
    }
    t.deepEqual(
      sizes.sort((a, b) => a - b),
      [first.length, second.length],
    );
  });
}

import http from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import test from 'ava';
import { fieldPaths, isProblem } from '../helpers/problem.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ MAX_JSON_BODY: '64kb' });
});
test.after.always(async () => app?.stop());

test('GET /api/health reports each component; embeddings turned off show as down without degrading', async (t) => {
  const res = await app.api.get('/api/health');
  t.is(res.status, 200);
  t.deepEqual(res.body, { status: 'ok', components: { database: 'ok', temporal: 'ok', storage: 'ok', vectors: 'ok', embeddings: 'down' } });
});

test('GET /api/v1/site/settings describes the site', async (t) => {
  const res = await app.api.get('/api/v1/site/settings');
  t.is(res.status, 200);
  t.deepEqual(res.body, {
    siteName: 'Almanac',
    registrationEnabled: true,
    version: '0.1.0',
    features: { semanticSearch: false, mcp: true },
  });
});

test('an unknown route is a 404 problem', async (t) => {
  isProblem(t, await app.api.get('/api/v1/no-such-thing'), 404, 'not_found');
  isProblem(t, await app.api.get('/elsewhere'), 404, 'not_found');
});

test('a wrong method on a known route is a 405 problem naming the allowed ones in Allow', async (t) => {
  const res = await app.api.request('PATCH', '/api/v1/organizations');
  isProblem(t, res, 405, 'method_not_allowed');
  t.is(res.headers.get('allow'), 'HEAD, GET, POST');
});

test('a method the API serves nowhere (TRACE, PROPFIND) is 405 with Allow too, never 501; on no route at all it is 404', async (t) => {
  // fetch refuses TRACE, so node:http asks.
  const ask = (method: string, path: string) =>
    new Promise<{ status: number; allow?: string; body: string }>((resolve, reject) => {
      const req = http.request(`${app.url}${path}`, { method }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, allow: res.headers.allow, body }));
      });
      req.on('error', reject);
      req.end();
    });
  for (const method of ['TRACE', 'PROPFIND']) {
    const res = await ask(method, '/api/v1/packages');
    t.is(res.status, 405, method);
    t.is(res.allow, 'HEAD, GET, POST', method);
    t.is(JSON.parse(res.body).code, 'method_not_allowed');
  }
  t.is((await ask('PROPFIND', '/api/v1/no-such-thing')).status, 404);
});

test('a concrete path wins over a templated one: /resources/count is never /resources/{id}, in answers or in Allow', async (t) => {
  // Each concrete path beside a templated sibling, what the document declares for it, and the sibling's other methods.
  const concrete = [
    ['/api/v1/resources/count', 'HEAD, GET', ['PUT', 'DELETE']],
    ['/api/v1/resources/formats', 'HEAD, GET', ['PUT', 'DELETE']],
    ['/api/v1/admin/users/stats', 'HEAD, GET', ['PATCH', 'DELETE']],
    ['/api/v1/packages/drafts', 'POST', ['GET', 'PUT', 'DELETE']],
  ] as const;
  for (const [path, allow, others] of concrete) {
    for (const method of others) {
      // Not the templated route's 401, 404 or 422: the path is not an {id}.
      const res = await app.api.request(method, path, undefined, app.sysadmin);
      isProblem(t, res, 405, 'method_not_allowed');
      t.is(res.headers.get('allow'), allow, `${method} ${path}`);
    }
    const options = await app.api.request('OPTIONS', path);
    t.is(options.status, 200, path);
    t.is(options.headers.get('allow'), allow, `OPTIONS ${path}`);
  }
  // The templated paths keep their own methods, and a trailing slash or another case is the same path.
  t.is(
    (await app.api.request('OPTIONS', '/api/v1/resources/00000000-0000-4000-8000-000000000000')).headers.get('allow'),
    'HEAD, GET, PUT, DELETE',
  );
  t.is((await app.api.request('OPTIONS', '/api/v1/Resources/Count/')).headers.get('allow'), 'HEAD, GET');
  t.is((await app.api.get('/api/v1/resources/count')).status, 200);
});

test('a dataset cannot be named drafts, the draft listing’s path, so every dataset stays reachable by its name', async (t) => {
  const org = await app.api.post('/api/v1/organizations', { name: 'reserved-org', title: 'Reserved' }, app.sysadmin);
  t.is(org.status, 201, org.text);
  const fields = { title: 'Drafts', ownerOrg: 'reserved-org', licenseId: 'cc-by' };
  const res = await app.api.post('/api/v1/packages', { ...fields, name: 'drafts' }, app.sysadmin);
  isProblem(t, res, 422, 'validation_failed');
  t.deepEqual(fieldPaths(res), ['name']);
  const draft = await app.api.post('/api/v1/packages/drafts', { name: 'drafts' }, app.sysadmin);
  isProblem(t, draft, 422, 'validation_failed');
});

test('an empty or non-decimal paging value is a 400 on every list, like any other invalid one', async (t) => {
  const lists = ['/tags', '/groups', '/organizations', '/packages', '/users', '/api-tokens', '/admin/users', '/admin/jobs'];
  for (const list of lists) {
    for (const bad of ['offset=', 'offset=%20', 'limit=', 'offset=0x10', 'offset=1e1', 'offset=1.5']) {
      isProblem(t, await app.api.get(`/api/v1${list}?${bad}`, app.sysadmin), 400, 'invalid_parameters');
    }
    const res = await app.api.get(`/api/v1${list}?offset=0&limit=5`, app.sysadmin);
    t.is(res.status, 200, `${list}: ${res.text}`);
    t.like(res.body, { offset: 0, limit: 5 });
  }
});

test('the document says a list filter needs a character other than a space, which is what the API checks', async (t) => {
  const doc = (await app.api.get('/api/v1/openapi.json')).body;
  const param = doc.paths['/api/v1/packages'].get.parameters.find((p: { name: string }) => p.name === 'res_format');
  const pattern = new RegExp(param.schema.anyOf[0].pattern);
  for (const blank of ['\r', ' ', '\t \n', '\u00a0', '\ufeff']) {
    t.false(pattern.test(blank), JSON.stringify(blank));
    isProblem(t, await app.api.get(`/api/v1/packages?res_format=${encodeURIComponent(blank)}`), 400, 'invalid_parameters');
  }
  t.true(pattern.test(' csv '));
  const spaced = await app.api.get('/api/v1/packages?res_format=%20csv%20&tags=%09fuzz');
  t.is(spaced.status, 200, spaced.text);
});

test('malformed JSON is a 400 problem, and the body never reaches the log', async (t) => {
  const res = await app.api.post('/api/v1/auth/login', '{"username": "root", "password": "leaky-secret-42"');
  isProblem(t, res, 400, 'malformed_json');
  t.false(app.logs.some((l) => l.includes('leaky-secret-42')));
});

test('a body over the limit is a 413 problem', async (t) => {
  const res = await app.api.post('/api/v1/auth/register', { username: 'big', email: 'b@example.org', password: 'x'.repeat(100_000) });
  isProblem(t, res, 413, 'payload_too_large');
});

test('a non-JSON body is a 415 problem', async (t) => {
  const res = await app.api.post('/api/v1/auth/login', 'username=root', { headers: { 'Content-Type': 'text/plain' } });
  isProblem(t, res, 415, 'unsupported_media_type');
});

test('validation failures are 422 with one entry per field path', async (t) => {
  const res = await app.api.post('/api/v1/auth/register', { username: 'No Spaces', email: 'not-an-email', password: 'short', extra: 1 });
  isProblem(t, res, 422, 'validation_failed');
  const paths = res.body.errors.map((e: { path: string }) => e.path).sort();
  t.deepEqual(paths, ['email', 'extra', 'password', 'username']);
});

test('paging above the maximum is a 400 naming the parameter', async (t) => {
  const res = await app.api.get('/api/v1/organizations?limit=101');
  isProblem(t, res, 400, 'invalid_parameters');
  t.deepEqual(res.body.errors, [{ path: 'limit', message: 'must be at most 100' }]);
});

test('every response carries an X-Request-Id, and a safe incoming one is echoed', async (t) => {
  const fresh = await app.api.get('/api/health');
  t.regex(fresh.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const echoed = await app.api.get('/api/v1/nope', { headers: { 'X-Request-Id': 'trace-abc.123' } });
  t.is(echoed.headers.get('x-request-id'), 'trace-abc.123');
  t.true(app.logs.some((l) => l.includes('"reqId":"trace-abc.123"')));
  const unsafe = await app.api.get('/api/health', { headers: { 'X-Request-Id': 'bad id with spaces' } });
  t.not(unsafe.headers.get('x-request-id'), 'bad id with spaces');
});

test('the OpenAPI 3.1 document describes the routes with their validators', async (t) => {
  const res = await app.api.get('/api/v1/openapi.json');
  t.is(res.status, 200);
  t.is(res.body.openapi, '3.1.0');
  const register = res.body.paths['/api/v1/auth/register'].post;
  const schema = register.requestBody.content['application/json'].schema;
  const resolved = schema.$ref ? res.body.components.schemas[schema.$ref.split('/').pop()] : schema;
  t.deepEqual([...resolved.required].sort(), ['email', 'password', 'username']);
  t.is(resolved.properties.password.minLength, 8);
  for (const path of [
    '/api/v1/organizations/{nameOrId}/members',
    '/api/v1/groups/{nameOrId}/purge',
    '/api/v1/admin/users/{userId}',
    '/api/v1/api-tokens/{id}',
    '/api/v1/tags/{id}',
  ]) {
    t.truthy(res.body.paths[path], path);
  }
  const limit = res.body.paths['/api/v1/organizations'].get.parameters.find((p: { name: string }) => p.name === 'limit');
  t.is(limit.schema.maximum, 100);
});

test('the OpenAPI document is valid OpenAPI 3.1', async (t) => {
  const res = await app.api.get('/api/v1/openapi.json');
  const validator = new Validator();
  const result = await validator.validate(res.body);
  t.true(result.valid, JSON.stringify(result.errors));
  t.is(validator.version, '3.1');
});

test('the docs page loads Swagger UI from this server', async (t) => {
  const page = await app.api.get('/api/docs');
  t.is(page.status, 200);
  const bundle = await fetch(`${app.url}/api/docs/swagger-ui-bundle.js`);
  t.is(bundle.status, 200);
  t.regex(bundle.headers.get('content-type') ?? '', /javascript/);
  const start = await fetch(`${app.url}/api/docs/start.js`);
  t.regex(await start.text(), /SwaggerUIBundle\(\{ url: '\/api\/v1\/openapi\.json'/);
});

test('the docs page runs no inline script and cannot be framed', async (t) => {
  const page = await app.api.get('/api/docs');
  const policy = page.headers.get('content-security-policy') ?? '';
  t.regex(policy, /(^|; )script-src 'self'(;|$)/);
  t.regex(policy, /frame-ancestors 'none'/);
  t.is(page.headers.get('x-frame-options'), 'DENY');
  t.notRegex(page.text, /<script>/, 'every script of the page is a file of this server');
});

test('GET /tags is an empty list until datasets exist, and an unknown tag is 404', async (t) => {
  const list = await app.api.get('/api/v1/tags');
  t.deepEqual(list.body, { count: 0, offset: 0, limit: 20, results: [] });
  isProblem(t, await app.api.get('/api/v1/tags/climate'), 404, 'not_found');
});

test('NUL characters never reach the database: 404 in a path, 400 in a query, 422 in a body', async (t) => {
  isProblem(t, await app.api.get('/api/v1/organizations/%00'), 404, 'not_found');
  const query = await app.api.get('/api/v1/tags?q=a%00b');
  isProblem(t, query, 400, 'invalid_parameters');
  t.deepEqual(query.body.errors, [{ path: 'q', message: 'must not contain NUL characters' }]);
  const body = await app.api.post('/api/v1/organizations', { name: 'nul-org', title: 'a\u0000b' }, { token: app.adminToken });
  isProblem(t, body, 422, 'validation_failed');
  t.deepEqual(body.body.errors, [{ path: 'title', message: 'must not contain NUL characters' }]);
  t.false(app.logs.some((l) => l.includes('"unhandled error"')));
});

test('a path parameter that cannot name anything is 404, not a validation error', async (t) => {
  isProblem(t, await app.api.get(`/api/v1/organizations/${'x'.repeat(300)}`), 404, 'not_found');
});

test('an unsupported Content-Encoding is a 415 problem, not a 500', async (t) => {
  const res = await app.api.post('/api/v1/auth/login', '{}', { headers: { 'Content-Encoding': 'bogus' } });
  isProblem(t, res, 415, 'unsupported_media_type');
});

test('a body that does not inflate as its Content-Encoding says is a 400 problem', async (t) => {
  const res = await app.api.post('/api/v1/auth/login', 'definitely not gzip', {
    headers: { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' },
  });
  isProblem(t, res, 400, 'malformed_body');
});

test('public answers are revalidated by ETag (304) and compressed; answers to a signed-in caller stay no-store', async (t) => {
  const url = `${app.url}/api/v1/site/settings`;
  const first = await fetch(url);
  const etag = first.headers.get('etag');
  t.regex(etag ?? '', /^W\/"[\w-]+"$/);
  t.is(first.headers.get('cache-control'), 'public, max-age=0, must-revalidate');
  t.regex(first.headers.get('vary') ?? '', /Authorization.*Cookie/);
  // Cache-Control set here: fetch would otherwise add no-cache to a conditional request, which asks for a full answer.
  const again = await fetch(url, { headers: { 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' } });
  t.is(again.status, 304);
  t.is(await again.text(), '');
  const signedIn = await fetch(url, { headers: { Authorization: `Bearer ${app.adminToken}` } });
  t.is(signedIn.headers.get('cache-control'), 'no-store');
  t.is(signedIn.headers.get('etag'), null);

  const docs = await fetch(`${app.url}/api/v1/openapi.json`, { headers: { 'Accept-Encoding': 'br, gzip' } });
  t.is(docs.status, 200);
  t.regex(docs.headers.get('content-encoding') ?? '', /^(br|gzip)$/);
  t.truthy((await docs.json()).openapi, 'fetch decodes it back to the same JSON');
});

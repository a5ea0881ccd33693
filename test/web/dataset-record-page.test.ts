import test from 'ava';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { CUSTOM_EXTRAS, CUSTOM_FIELDS, DISTRIBUTION, EXTRAS, PROFILE, RECORD } from '../helpers/metadata-record.ts';

/**
 * Issue 28 §3: the dataset page shows all of the record (coverage, frequency, languages, themes,
 * publisher, contacts, access level, rights, identifiers, codes, conformsTo, describedBy, references,
 * extras, profile fields), with the spatial coverage drawn on the server as SVG; the resource page shows
 * the distribution record and the resource's extras. Text from the record is a stranger's: escaped
 * everywhere, the drawing's titles included. Checked as HTML, then in Chromium (CSP, layout, axe).
 */

let app: TestApp;
let browser: Browser;
let resourceId: string;

const HOSTILE = {
  rights: '<img src=x onerror=alert(1)> & rights',
  extra: { key: '<b>key</b>', value: '<script>alert(1)</script>' },
  contact: { name: 'Desk </dd><script>alert(2)</script>', email: 'desk@example.gov' },
};

test.before(async () => {
  app = await startTestApp();
  const admin = app.sysadmin;
  const org = await app.api.post('/api/v1/organizations', { name: 'stats-office', title: 'Stats office' }, admin);
  if (org.status !== 201) throw new Error(org.text);
  const profile = await app.api.put('/api/v1/admin/profiles/site', PROFILE, admin);
  if (profile.status !== 201) throw new Error(profile.text);
  const made = await app.api.post(
    '/api/v1/packages',
    {
      name: 'record-page',
      title: 'Record page',
      ownerOrg: 'stats-office',
      licenseId: 'cc-by',
      ...RECORD,
      rights: HOSTILE.rights,
      contactPoint: [HOSTILE.contact],
      extras: [...EXTRAS, HOSTILE.extra],
      customFields: CUSTOM_FIELDS,
      resources: [{ url: 'https://example.org/data.csv', name: 'data', format: 'CSV', ...DISTRIBUTION, customExtras: CUSTOM_EXTRAS }],
    },
    admin,
  );
  if (made.status !== 201) throw new Error(made.text);
  resourceId = made.body.resources[0].id;
  const bare = await app.api.post('/api/v1/packages', { name: 'bare-page', ownerOrg: 'stats-office', licenseId: 'cc-by' }, admin);
  if (bare.status !== 201) throw new Error(bare.text);
});
test.after.always(async () => {
  await browser?.close();
  await app?.stop();
});

const page = (path: string) => app.api.get(path, { headers: { Accept: 'text/html' } });

test('the dataset page shows every part of the record that is set, under its label', async (t) => {
  const html = (await page('/dataset/record-page')).text;
  for (const text of [
    'Coverage',
    '2010 to 2019-12-31',
    'from 2021-01-01T00:00:00Z',
    '<a href="https://sws.geonames.org/2862926/" rel="nofollow ugc noopener">Lower Saxony</a>',
    'Update frequency',
    'R/P1Y',
    'en-US',
    '<a href="http://publications.europa.eu/resource/authority/data-theme/ENVI" rel="nofollow ugc noopener">Environment</a>',
    'Energy',
    'Office of Statistics',
    '<a href="https://example.gov/doc" rel="nofollow ugc noopener">Department of Commerce</a>',
    '<a href="mailto:desk@example.gov">desk@example.gov</a>',
    'restricted public',
    'DOC-STAT-0042',
    '10.1234/abcd',
    '006:07',
    '006:001',
    '<a href="https://example.org/schema/v2" rel="nofollow ugc noopener">',
    '<a href="https://example.org/dictionary.csv" rel="nofollow ugc noopener">',
    'text/csv',
    '<a href="https://example.org/methodology.pdf" rel="nofollow ugc noopener">',
    'Adds 2019.',
    'P1D',
  ]) {
    t.true(html.includes(text), text);
  }
  for (const label of [
    'Publisher',
    'Contact',
    'Language',
    'Themes',
    'Access level',
    'Rights',
    'Identifier',
    'Bureau codes',
    'Program codes',
  ]) {
    t.true(html.includes(`<dt>${label}</dt>`), label);
  }
  // Profile fields and extras, as they are.
  t.true(html.includes('<dt>region</dt><dd>north</dd>'));
  t.true(html.includes('<dt>population</dt><dd>8000000</dd>'));
  t.true(html.includes('<dt>keywords_local</dt><dd>Wasser, Pegel</dd>'));
  for (const e of EXTRAS.slice(0, 2))
    t.true(html.includes(`<th scope="row">${e.key}</th><td>${e.value.replace(/"/g, '&quot;')}</td>`), e.key);
});

test('the spatial coverage is an SVG drawn on the server: a frame, a graticule, the box and the polygon', async (t) => {
  const html = (await page('/dataset/record-page')).text;
  const svg = /<svg class="coverage-map"[^>]*>.*?<\/svg>/s.exec(html)?.[0];
  t.truthy(svg, 'the drawing is in the page');
  t.regex(svg!, /role="img" aria-label="Spatial coverage: 2 places within 6.65°E to 11.6°E, 51.29°N to 53.89°N"/);
  t.true((svg!.match(/<line /g) ?? []).length >= 4, 'graticule lines');
  t.true(svg!.includes('>8°E</text>') && svg!.includes('>52°N</text>'), 'labelled graticule');
  t.is((svg!.match(/class="bbox"/g) ?? []).length, 1);
  const outline = /<path class="outline" d="([^"]+)"/.exec(svg!)?.[1];
  t.regex(outline!, /^M[\d.]+ [\d.]+( L[\d.]+ [\d.]+){4} Z$/, 'the polygon’s five positions, closed');
  t.true(svg!.includes('<title>Test &lt;polygon> &amp; &quot;area&quot;</title>'), 'a place name is escaped text in the drawing');
  t.false(html.includes('<script src'), 'no script drawn it');
});

test('a dataset without a record shows none of its sections', async (t) => {
  const html = (await page('/dataset/bare-page')).text;
  for (const id of ['coverage-heading', 'record-heading', 'custom-heading', 'extras-heading']) t.false(html.includes(id), id);
  t.false(html.includes('coverage-map'));
});

test('every stranger text of the record is escaped', async (t) => {
  const html = (await page('/dataset/record-page')).text;
  t.false(html.includes('<script>alert'), 'no script from the record');
  t.false(/<img[^>]*onerror/i.test(html), 'no raw HTML from the rights');
  t.false(html.includes('<b>key</b>'));
  t.true(html.includes('&lt;img src=x onerror=alert(1)> &amp; rights'));
  t.true(html.includes('<th scope="row">&lt;b>key&lt;/b></th><td>&lt;script>alert(1)&lt;/script></td>'));
  t.true(html.includes('Desk &lt;/dd>&lt;script>alert(2)&lt;/script>'));
});

test('the resource page shows the distribution record and the resource’s extras', async (t) => {
  const html = (await page(`/dataset/record-page/resource/${resourceId}`)).text;
  for (const text of [
    '<dt>Access URL</dt><dd><a href="https://example.org/api" rel="nofollow ugc noopener">https://example.org/api</a></dd>',
    '<dt>Download URL</dt>',
    '<dt>Size at the source (bytes)</dt><dd>1234</dd>',
    `algorithm:</span> sha256`,
    '<dt>License</dt>',
    '<dt>Issued at the source</dt><dd>2020-01-01</dd>',
    '<th scope="row">station_code</th><td>HB-07</td>',
    '<th scope="row">notes_extra</th><td> spaced </td>',
  ]) {
    t.true(html.includes(text), text);
  }
});

test('in Chromium the page loads with no CSP or script error, the drawing has a size, and axe finds nothing serious', async (t) => {
  const executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath) throw new Error('CHROMIUM_PATH is not set: run through test/run.ts, which provisions Debian’s chromium');
  browser = await chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
  const context = await browser.newContext({ baseURL: app.url, javaScriptEnabled: false });
  const tab = await context.newPage();
  const errors: string[] = [];
  tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  tab.on('pageerror', (e) => errors.push(e.message));
  await tab.goto('/dataset/record-page');
  const map = await tab.locator('svg.coverage-map').boundingBox();
  t.truthy(map && map.width > 100 && map.height > 50, JSON.stringify(map));
  const box = await tab.locator('svg.coverage-map path.bbox').boundingBox();
  t.truthy(box && box.width > 10 && box.height > 10, 'the box is drawn with a size');
  t.true(box!.x >= map!.x && box!.x + box!.width <= map!.x + map!.width + 1, 'inside the frame');
  if (process.env.RECORD_PAGE_SCREENSHOT) await tab.screenshot({ path: process.env.RECORD_PAGE_SCREENSHOT, fullPage: true });
  t.deepEqual(errors, []);
  await context.close();

  const axeContext = await browser.newContext({ baseURL: app.url });
  const axeTab = await axeContext.newPage();
  const { readFileSync } = await import('node:fs');
  const { createRequire } = await import('node:module');
  for (const path of ['/dataset/record-page', `/dataset/record-page/resource/${resourceId}`]) {
    await axeTab.goto(path);
    await axeTab.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
    const results = await axeTab.evaluate(() =>
      (
        globalThis as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; impact: string; help: string }> }> } }
      ).axe.run(),
    );
    t.deepEqual(
      results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`),
      [],
      path,
    );
  }
  await axeContext.close();
});

import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { applyHarvestPage, finishHarvestRun, harvestRunCounts } from '../../src/domain/harvest/apply.ts';
import type { HarvestRun, HarvestSource } from '../../src/entities/index.ts';
import type { HarvestItem, HarvestRecord } from '../../src/domain/harvest/record.ts';
import { SourceInvalid } from '../../src/domain/harvest/errors.ts';
import { semanticEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import { ckanGet, resultOf } from '../helpers/ckan.ts';
import { python, tempFile } from '../helpers/feed-fixtures.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { domainContext, harvestRecord, makeRun, makeSource, resource } from '../helpers/harvest-domain.ts';

/**
 * Issue 18, the domain side of a harvest: what applying a source's records does to the catalog,
 * observed over HTTP (the records, the CKAN API, the edit lock). The items are applied the way the
 * harvest workflow's activities do, on the running app's services.
 */

let app: TestApp;
let source: HarvestSource;

test.before(async () => {
  app = await startTestApp(semanticEnv());
  for (const name of ['hv-org', 'hv-other']) await app.api.post('/api/v1/organizations', { name }, app.sysadmin);
  source = await makeSource(app, { name: 'agency', organization: 'hv-org' });
});
test.after.always(async () => {
  await app?.stop();
});

const apply = async (src: HarvestSource, run: HarvestRun, item: HarvestItem) =>
  (await applyHarvestPage(domainContext(app), src, run, [item]))[0]!;
const rec = (record: HarvestRecord): HarvestItem => ({ kind: 'record', record });
const show = (nameOrId: string) => app.api.get(`/api/v1/packages/${nameOrId}`, app.sysadmin);
async function byRemoteId(src: HarvestSource, remoteId: string) {
  const rows: Array<{ id: string }> = await app.almanac.services.orm.em
    .fork()
    .execute('select id from datasets where harvest_source_id = ? and harvest_remote_id = ?', [src.id, remoteId]);
  return rows;
}

test('a record is created once: active, published, in the source’s organization, with its provenance; a replay of the page changes nothing', async (t) => {
  const run = await makeRun(app, source);
  const item = rec(harvestRecord('first', { private: false, groups: [{ name: 'transport', title: 'Transport' }] }));
  t.is(await apply(source, run, item), 'created');
  t.is(await apply(source, run, item), 'created');
  const rows = await byRemoteId(source, 'first');
  t.is(rows.length, 1);

  const { body } = await show('first');
  t.is(body.state, 'active');
  t.truthy(body.publishedAt);
  t.is(body.organization.name, 'hv-org');
  t.deepEqual(body.tags, ['alpha', 'beta']);
  t.deepEqual(
    body.groups.map((g: { name: string; title: string }) => [g.name, g.title]),
    [['transport', 'Transport']],
  );
  t.is(body.resources.length, 1);
  t.is(body.resources[0].format, 'CSV');
  t.like(body.harvest, { sourceId: source.id, remoteId: 'first', remoteUrl: 'http://source.example/dataset/first' });
  t.truthy(Date.parse(body.harvest.harvestedAt));
  t.like(await harvestRunCounts(domainContext(app), run.id), { seen: 1, created: 1, updated: 0, unchanged: 0 });
});

test('the next run finds the same record unchanged and leaves the dataset as it was', async (t) => {
  const item = rec(harvestRecord('steady'));
  t.is(await apply(source, await makeRun(app, source), item), 'created');
  const before = (await show('steady')).body;
  const second = await makeRun(app, source);
  // Only `modified` differs: the hash leaves it out, so nothing is written.
  t.is(await apply(source, second, rec({ ...harvestRecord('steady'), modified: '2026-01-01T00:00:00Z' })), 'unchanged');
  const after = (await show('steady')).body;
  t.is(after.updatedAt, before.updatedAt);
  t.deepEqual(after.resources, before.resources);
  t.like(await harvestRunCounts(domainContext(app), second.id), { seen: 1, unchanged: 1, created: 0, updated: 0 });
});

test('a change at the source is one update: fields and tags follow it, resources are matched by URL (kept, added, removed)', async (t) => {
  const keep = 'http://files.example/keep.csv';
  const gone = 'http://files.example/gone.csv';
  t.is(
    await apply(source, await makeRun(app, source), rec(harvestRecord('moving', { resources: [resource(keep), resource(gone)] }))),
    'created',
  );
  const before = (await show('moving')).body;
  const keptId = before.resources.find((r: { url: string }) => r.url === keep).id;

  const run = await makeRun(app, source);
  const changed = harvestRecord('moving', {
    title: 'A new title',
    tags: ['beta', 'gamma'],
    resources: [resource('http://files.example/new.csv', { name: 'New' }), resource(keep, { name: 'Kept, renamed' })],
  });
  t.is(await apply(source, run, rec(changed)), 'updated');
  t.is(await apply(source, run, rec(changed)), 'updated');
  const after = (await show('moving')).body;
  t.is(after.id, before.id);
  t.is(after.title, 'A new title');
  t.deepEqual(after.tags, ['beta', 'gamma']);
  t.deepEqual(
    after.resources.map((r: { url: string; name: string }) => [r.url, r.name]),
    [
      ['http://files.example/new.csv', 'New'],
      [keep, 'Kept, renamed'],
    ],
  );
  t.is(after.resources[1].id, keptId);
  t.like(await harvestRunCounts(domainContext(app), run.id), { seen: 1, updated: 1 });
});

test('a name taken by a dataset made here gets a numbered suffix; the hand-made one is left alone', async (t) => {
  const mine = await app.api.post(
    '/api/v1/packages',
    { name: 'clash', ownerOrg: 'hv-other', licenseId: 'cc-by', title: 'Mine' },
    app.sysadmin,
  );
  t.is(mine.status, 201);
  const run = await makeRun(app, source);
  t.is(await apply(source, run, rec(harvestRecord('remote-clash', { name: 'clash' }))), 'created');
  t.is(await apply(source, run, rec(harvestRecord('remote-clash-too', { name: 'clash' }))), 'created');
  t.is((await show('clash')).body.title, 'Mine');
  t.is((await show('clash')).body.harvest, null);
  t.is((await show('clash-2')).body.harvest.remoteId, 'remote-clash');
  t.is((await show('clash-3')).body.harvest.remoteId, 'remote-clash-too');
});

test('a record without a name gets one from its title', async (t) => {
  const run = await makeRun(app, source);
  t.is(
    await apply(source, run, rec(harvestRecord('https://agency.example/id/42', { name: null, title: 'Café Données: 2024 Edition' }))),
    'created',
  );
  t.is((await show('cafe-donnees-2024-edition')).body.harvest.remoteId, 'https://agency.example/id/42');
});

test('refused items and records that break a rule are failed with their reason, and create nothing', async (t) => {
  const run = await makeRun(app, source);
  t.is(await apply(source, run, { kind: 'refused', remoteId: 'r-1', title: 'Broken', reason: 'invalid: no title' }), 'failed');
  const big = harvestRecord('too-big', { resources: Array.from({ length: 5001 }, (_, i) => resource(`http://files.example/big/${i}`)) });
  t.is(await apply(source, run, rec(big)), 'failed');
  t.is(await apply(source, run, rec(harvestRecord('bad-mail', { authorEmail: 'not an email' }))), 'failed');
  t.is((await byRemoteId(source, 'too-big')).length, 0);

  const noOrg = await makeSource(app, { name: 'orphan-source', organization: null });
  t.is(await apply(noOrg, await makeRun(app, noOrg), rec(harvestRecord('orphan'))), 'failed');

  const counts = await harvestRunCounts(domainContext(app), run.id);
  t.like(counts, { seen: 3, failed: 3, created: 0 });
  t.deepEqual(
    counts.errors.map((e) => [e.remoteId, e.reason]),
    [
      ['r-1', 'invalid: no title'],
      ['too-big', 'resources: too big: 5,001 resources (at most 5,000)'],
      ['bad-mail', 'authorEmail: must be an email address'],
    ],
  );
  t.is(counts.errors[0]!.title, 'Broken');
});

test('a CKAN source mirrors the record’s organization by name, creating it when missing', async (t) => {
  const ckan = await makeSource(app, { name: 'ckan-site', type: 'ckan', organization: 'hv-org' });
  const run = await makeRun(app, ckan);
  const record = harvestRecord('ck-1', { organization: { name: 'remote-agency', title: 'Remote Agency', description: 'From afar' } });
  t.is(await apply(ckan, run, rec(record)), 'created');
  t.is(await apply(ckan, run, rec(harvestRecord('ck-2'))), 'created');
  t.is((await show('ck-1')).body.organization.name, 'remote-agency');
  t.like((await app.api.get('/api/v1/organizations/remote-agency')).body, { title: 'Remote Agency', description: 'From afar' });
  t.is((await show('ck-2')).body.organization.name, 'hv-org');
});

test('datasets gone from the source are counted removed after a full run, and soft-deleted only with deleteRemoved', async (t) => {
  for (const deleteRemoved of [false, true]) {
    const src = await makeSource(app, { name: `removal-${deleteRemoved}`, organization: 'hv-org', deleteRemoved });
    const first = await makeRun(app, src);
    for (const id of ['stays', 'goes']) await apply(src, first, rec(harvestRecord(`${id}-${deleteRemoved}`)));
    t.deepEqual(await finishHarvestRun(domainContext(app), src, first, { full: true }), { removed: 0 });

    const second = await makeRun(app, src);
    t.is(await apply(src, second, rec(harvestRecord(`stays-${deleteRemoved}`))), 'unchanged');
    t.deepEqual(await finishHarvestRun(domainContext(app), src, second, { full: false }), { removed: 0 });
    t.deepEqual(await finishHarvestRun(domainContext(app), src, second, { full: true }), { removed: 1 });
    t.deepEqual(await finishHarvestRun(domainContext(app), src, second, { full: true }), { removed: 1 });
    t.like(await harvestRunCounts(domainContext(app), second.id), { seen: 1, unchanged: 1, removed: 1 });
    t.is((await show(`goes-${deleteRemoved}`)).body.state, deleteRemoved ? 'deleted' : 'active');
    t.is((await show(`stays-${deleteRemoved}`)).body.state, 'active');
  }
});

test('a page’s datasets are found by keywords once the page is applied, and by meaning once the run’s end has the vector backlog job embed them', async (t) => {
  const src = await makeSource(app, { name: 'searchable', organization: 'hv-org' });
  const run = await makeRun(app, src);
  const topics = {
    'hv-volcanoes': ['Volcanic eruptions', 'Dates, places and explosivity of volcanic eruptions since 1900.'],
    'hv-bicycles': ['Bicycle counters', 'Hourly counts of cyclists passing the city’s bike lane counters.'],
    'hv-harbour': ['Harbour traffic', 'Ships entering and leaving the port, with tonnage and flag.'],
  };
  const items = Object.entries(topics).map(([id, [title, notes]]) => rec(harvestRecord(id, { title, notes })));
  t.deepEqual(await applyHarvestPage(domainContext(app), src, run, items), ['created', 'created', 'created']);
  const search = async (q: string) =>
    (await app.api.get(`/api/v1/packages?q=${encodeURIComponent(q)}&limit=5`)).body.results as Array<{
      name: string;
      match: { keyword: boolean; semantic: unknown[] };
    }>;
  t.like((await search('explosivity'))[0], { name: 'hv-volcanoes', match: { keyword: true } });
  t.deepEqual(await finishHarvestRun(domainContext(app), src, run, { full: false }), { removed: 0 });
  let byMeaning;
  for (const deadline = Date.now() + 60_000; !byMeaning?.match.semantic.length && Date.now() < deadline; await sleep(200)) {
    byMeaning = (await search('cycling')).find((r) => r.name === 'hv-bicycles');
  }
  t.truthy(byMeaning?.match.semantic.length, 'found by its vectors');
  const jobs = await app.api.get('/api/v1/admin/jobs?type=vector-backlog', app.sysadmin);
  t.is(jobs.status, 200, jobs.text);
  t.true(jobs.body.results.length >= 1, 'the run’s end started the backlog job');
});

test('a page whose run is stopped takes no new records once its signal aborts, syncs what it committed, and throws the reason', async (t) => {
  const src = await makeSource(app, { name: 'page-abort', organization: 'hv-org' });
  const run = await makeRun(app, src);
  const stop = new AbortController();
  let applied = 0;
  const items = Array.from({ length: 30 }, (_, i) => rec(harvestRecord(`page-abort-${i}`)));
  const onApplied = () => {
    if (++applied === 3) stop.abort(new Error('the run was terminated'));
  };
  await t.throwsAsync(applyHarvestPage(domainContext(app), src, run, items, { onApplied, signal: stop.signal }), {
    message: 'the run was terminated',
  });
  const [{ n }] = await app.almanac.services.orm.em
    .fork()
    .execute('select count(*)::int as n from harvest_run_records where run_id = ?', [run.id]);
  t.is(n, applied);
  t.true(applied < 30, `applied ${applied} of 30`);
  // What committed before the stop is in search all the same: nothing replays a stopped run.
  const found = await app.api.get('/api/v1/packages?q=page-abort&limit=100');
  const names = (found.body.results as Array<{ name: string }>).map((r) => r.name).filter((name) => name.startsWith('page-abort-'));
  t.is(names.length, applied, names.join(' '));
});

test('a full run that read no record at all removes nothing: it fails saying the datasets are kept', async (t) => {
  const src = await makeSource(app, { name: 'gone-empty', organization: 'hv-org', deleteRemoved: true });
  const first = await makeRun(app, src);
  await apply(src, first, rec(harvestRecord('kept-when-empty')));
  const empty = await makeRun(app, src);
  const err = await t.throwsAsync(finishHarvestRun(domainContext(app), src, empty, { full: true }), { instanceOf: SourceInvalid });
  t.regex(err.message, /listed no datasets at all, so the 1 active datasets harvested from it are kept/);
  t.like(await harvestRunCounts(domainContext(app), empty.id), { seen: 0, removed: 0 });
  t.is((await show('kept-when-empty')).body.state, 'active');
});

test('a harvested dataset is not editable by hand, sysadmins included: 409 harvested_dataset naming the source', async (t) => {
  await apply(source, await makeRun(app, source), rec(harvestRecord('locked')));
  const { body } = await show('locked');
  const resourceId = body.resources[0].id;
  const attempts = [
    await app.api.put(
      `/api/v1/packages/${body.id}`,
      { name: 'locked', ownerOrg: 'hv-org', licenseId: 'cc-by', title: 'Mine now' },
      app.sysadmin,
    ),
    await app.api.post(`/api/v1/packages/${body.id}/resources`, { url: 'http://files.example/mine.csv' }, app.sysadmin),
    await app.api.put(`/api/v1/packages/${body.id}/resources/reorder`, { order: [resourceId] }, app.sysadmin),
    await app.api.put(`/api/v1/resources/${resourceId}`, { url: 'http://files.example/other.csv' }, app.sysadmin),
    await app.api.delete(`/api/v1/resources/${resourceId}`, app.sysadmin),
  ];
  for (const res of attempts) {
    t.is(res.status, 409);
    t.is(res.body.code, 'harvested_dataset');
    t.regex(res.body.detail, /managed by harvest source agency; delete the source without purge to detach it, then edit/);
  }
  t.is((await show('locked')).body.title, 'Title of locked');
  t.is((await show('locked')).body.resources.length, 1);
  // Taking it down stays possible; the source's next run brings it back while the source still has it.
  t.is((await app.api.delete(`/api/v1/packages/${body.id}`, app.sysadmin)).status, 204);
  t.is(await apply(source, await makeRun(app, source), rec(harvestRecord('locked'))), 'updated');
  t.is((await show('locked')).body.state, 'active');
});

test('the CKAN API’s package_show carries the provenance as extras; a dataset made here has none', async (t) => {
  await apply(source, await makeRun(app, source), rec(harvestRecord('ckan-visible')));
  const pkg = resultOf(await ckanGet(app.api, 'package_show', { id: 'ckan-visible' }));
  const extras = Object.fromEntries(pkg.extras.map((e: { key: string; value: string }) => [e.key, e.value]));
  t.like(extras, {
    harvest_source_id: source.id,
    harvest_remote_id: 'ckan-visible',
    harvest_remote_url: 'http://source.example/dataset/ckan-visible',
  });
  t.regex(extras.harvested_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
  await app.api.post('/api/v1/packages', { name: 'made-here', ownerOrg: 'hv-org', licenseId: 'cc-by' }, app.sysadmin);
  t.deepEqual(resultOf(await ckanGet(app.api, 'package_show', { id: 'made-here' })).extras, []);
});

test('the DCAT-AP document of a harvested dataset names its source (dct:source) and its id there (adms:identifier), and passes the DCAT-AP 3.0.0 shapes', async (t) => {
  await apply(source, await makeRun(app, source), rec(harvestRecord('in-dcat')));
  const { body } = await show('in-dcat');
  const reply = await fetch(`${app.url}/dataset/${body.id}.ttl`);
  t.is(reply.status, 200);
  const turtle = await reply.text();
  t.regex(
    turtle,
    /<http:\/\/purl\.org\/dc\/terms\/source> <http:\/\/source\.example\/dataset\/in-dcat>|dct:source <http:\/\/source\.example\/dataset\/in-dcat>/,
  );
  t.regex(turtle, /<http:\/\/www\.w3\.org\/2004\/02\/skos\/core#notation> "in-dcat"/);
  const shapes = path.join(SHARED_DATA, 'dcat-ap/dcat-ap-3.0.0-SHACL.ttl');
  const result = await python('rdf_tools.py', ['shacl', await tempFile('harvested.ttl', turtle), shapes]);
  t.is(result.violations, 0, result.report);
  t.is(result.warnings, 0, result.report);
});

test('one bad record never fails a run: an over-long remote id fails under a shortened key, an over-long remote URL is dropped, NUL and lone surrogates are cleaned', async (t) => {
  const src = await makeSource(app, { name: 'bad-records', organization: 'hv-org' });
  const run = await makeRun(app, src);
  const longId = `http://agency.example/${'x'.repeat(1200)}`;
  t.is(await apply(src, run, rec(harvestRecord(longId))), 'failed');
  t.is(await apply(src, run, rec(harvestRecord(longId))), 'failed');
  t.is(await apply(src, run, rec(harvestRecord('long-url', { remoteUrl: `http://source.example/${'u'.repeat(2100)}` }))), 'created');
  t.is((await show('long-url')).body.harvest.remoteUrl, null);
  t.is(await apply(src, run, { kind: 'refused', remoteId: 'nul\0-\ud800id', title: 'Ti\0tle \udc00', reason: 'bad\0 reason' }), 'failed');
  t.is(await apply(src, run, rec(harvestRecord('nul-\0id', { name: 'nul-id' }))), 'created');
  t.is(await apply(src, run, rec(harvestRecord('nul-\0id', { name: 'nul-id' }))), 'created');
  t.is((await show('nul-id')).body.harvest.remoteId, 'nul-id');

  const counts = await harvestRunCounts(domainContext(app), run.id);
  t.like(counts, { seen: 4, failed: 2, created: 2 });
  const [tooLongId, refused] = counts.errors;
  t.is(tooLongId!.remoteId.length, 900 + 1 + 32);
  t.true(tooLongId!.remoteId.startsWith(longId.slice(0, 900) + '#'));
  t.is(tooLongId!.reason, 'remoteId: too long: 1,222 characters (at most 1,000)');
  t.deepEqual(refused, { remoteId: 'nul-\ufffdid', title: 'Title \ufffd', reason: 'bad reason' });
});

test('a record the database refuses (a constraint no rule here checks) fails with the constraint’s name, no SQL or values; the run goes on', async (t) => {
  const src = await makeSource(app, { name: 'db-refuses', organization: 'hv-org' });
  const run = await makeRun(app, src);
  const em = app.almanac.services.orm.em.fork();
  await em.execute(`alter table datasets add constraint harvest_test_no_poison check (title is distinct from 'Poison secret')`);
  try {
    t.is(await apply(src, run, rec(harvestRecord('poisoned', { title: 'Poison secret' }))), 'failed');
    t.is(await apply(src, run, rec(harvestRecord('healthy'))), 'created');
  } finally {
    await em.execute('alter table datasets drop constraint harvest_test_no_poison');
  }
  const counts = await harvestRunCounts(domainContext(app), run.id);
  t.like(counts, { seen: 2, failed: 1, created: 1 });
  t.deepEqual(counts.errors, [{ remoteId: 'poisoned', title: 'Poison secret', reason: 'could not be stored (harvest_test_no_poison)' }]);
});

test('records sharing a title applied side by side each get their own name: base, base-2 … base-12, all created', async (t) => {
  const src = await makeSource(app, { name: 'same-titles', organization: 'hv-org' });
  const run = await makeRun(app, src);
  const items = Array.from({ length: 12 }, (_, i) =>
    rec(harvestRecord(`same-title-${i}`, { name: null, title: 'Annual Report Stampede' })),
  );
  const outcomes = await Promise.all(items.map((item) => apply(src, run, item)));
  t.deepEqual(outcomes, Array(12).fill('created'));
  const rows: Array<{ name: string }> = await app.almanac.services.orm.em
    .fork()
    .execute('select name from datasets where harvest_source_id = ? order by name', [src.id]);
  const expected = ['annual-report-stampede', ...Array.from({ length: 11 }, (_, i) => `annual-report-stampede-${i + 2}`)];
  t.deepEqual(rows.map((r) => r.name).sort(), expected.sort());
});

test('a record the source withdraws as not public makes its harvested dataset private (kept, not deleted), counted updated; public again, it is public again', async (t) => {
  const src = await makeSource(app, { name: 'withdrawing', organization: 'hv-org' });
  t.is(await apply(src, await makeRun(app, src), rec(harvestRecord('withdrawn-one'))), 'created');
  const withdrawn: HarvestItem = {
    kind: 'refused',
    remoteId: 'withdrawn-one',
    title: 'Title of withdrawn-one',
    reason: 'non-public record (accessLevel non-public)',
    withdrawn: true,
  };
  const second = await makeRun(app, src);
  t.is(await apply(src, second, withdrawn), 'updated');
  t.is(await apply(src, second, withdrawn), 'updated');
  t.like((await show('withdrawn-one')).body, { state: 'active', private: true });
  t.like(await harvestRunCounts(domainContext(app), second.id), { seen: 1, updated: 1, failed: 0 });
  const reason: Array<{ reason: string }> = await app.almanac.services.orm.em
    .fork()
    .execute('select reason from harvest_run_records where run_id = ?', [second.id]);
  t.deepEqual(reason, [{ reason: 'withdrawn at the source: non-public record (accessLevel non-public)' }]);
  t.deepEqual(await finishHarvestRun(domainContext(app), src, second, { full: true }), { removed: 0 });

  t.is(await apply(src, await makeRun(app, src), withdrawn), 'unchanged');
  t.is(await apply(src, await makeRun(app, src), rec(harvestRecord('withdrawn-one'))), 'updated');
  t.like((await show('withdrawn-one')).body, { state: 'active', private: false });
  // Never harvested here: a withdrawn item is only a failure with its reason.
  t.is(await apply(src, await makeRun(app, src), { ...withdrawn, remoteId: 'never-seen' }), 'failed');
});

test('when one record of a page throws, the page takes no new records, lets the ones in flight finish, then fails', async (t) => {
  const src = await makeSource(app, { name: 'page-stop', organization: 'hv-org' });
  const run = await makeRun(app, src);
  // The second record throws when it is taken (as a mapping bug would); the others are real records. The
  // page reads every item's key once before it takes any (its replay lookup): a take is the second read.
  const reads = new Map<number, number>();
  const taken = new Set<number>();
  let ended = 0;
  const items = Array.from({ length: 20 }, (_, i): HarvestItem => {
    const item = rec(harvestRecord(`page-stop-${i}`));
    return {
      get kind() {
        reads.set(i, (reads.get(i) ?? 0) + 1);
        if (reads.get(i)! < 2) return item.kind;
        taken.add(i);
        if (i === 1) throw new Error('record mapping failed');
        return item.kind;
      },
      record: item.kind === 'record' ? item.record : undefined!,
    } as HarvestItem;
  });
  await t.throwsAsync(applyHarvestPage(domainContext(app), src, run, items, { onApplied: () => ended++ }), {
    message: 'record mapping failed',
  });
  const stored = async () =>
    (await app.almanac.services.orm.em.fork().execute('select count(*)::int as n from harvest_run_records where run_id = ?', [run.id]))[0]
      .n;
  const afterThrow = await stored();
  await sleep(300);
  t.is(await stored(), afterThrow, 'no record of the page is still being applied');
  t.is(afterThrow, taken.size - 1, 'every record taken but the failing one was applied to the end');
  t.true(taken.size < 20, `took ${taken.size} of 20 records`);
  t.is(ended, afterThrow);
});

test('a page that holds one remote id twice creates one dataset for it and counts it once', async (t) => {
  const run = await makeRun(app, source);
  const twice = rec(harvestRecord('twice-in-page'));
  const outcomes = await applyHarvestPage(domainContext(app), source, run, [twice, rec(harvestRecord('beside-twice')), twice]);
  t.deepEqual(outcomes, ['created', 'created', 'created']);
  t.is((await byRemoteId(source, 'twice-in-page')).length, 1);
  t.like(await harvestRunCounts(domainContext(app), run.id), { seen: 2, created: 2, failed: 0 });
});

test('the records of a source whose organization is deleted here fail saying so, and create nothing', async (t) => {
  await app.api.post('/api/v1/organizations', { name: 'hv-gone' }, app.sysadmin);
  const src = await makeSource(app, { name: 'gone-org-source', organization: 'hv-gone' });
  await app.almanac.services.orm.em.fork().execute(`update groups set state = 'deleted' where kind = 'organization' and name = 'hv-gone'`);
  const run = await makeRun(app, src);
  t.is(await apply(src, run, rec(harvestRecord('into-gone-org'))), 'failed');
  t.is((await byRemoteId(src, 'into-gone-org')).length, 0);
  const counts = await harvestRunCounts(domainContext(app), run.id);
  t.deepEqual(
    counts.errors.map((e) => [e.remoteId, e.reason]),
    [['into-gone-org', "no organization: the source's organization is deleted"]],
  );
});

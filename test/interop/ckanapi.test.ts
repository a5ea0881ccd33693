import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestAppWithPeople, type TestApp } from '../helpers/app.ts';
import { as, type Auth, type TestUser } from '../helpers/client.ts';
import { groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';

/**
 * The CKAN-compatible API through clients no one here wrote (issue 17, "Done when"): the `ckanapi` CLI
 * and Python module pinned from PyPI (test/helpers/tools.ts), and a replay of the CKAN harvester's
 * gather loop (ckanext-harvest's CKANHarvester._search_for_datasets: rows=100, start += 100,
 * sort=id asc, fq on organization, stop at an empty page, fail on two identical pages) and of its
 * incremental query (metadata_modified:[<last run>Z TO *]), over more than 100 public datasets among
 * drafts, private and deleted ones.
 */

const HARVESTED_ORG_PUBLIC = 112;
const OTHER_ORG_PUBLIC = 9;

let app: TestApp;
let member: TestUser;
let binDir: string;
/** Names by kind: the public ones every client must get exactly once, and those no anonymous client may see. */
const publicA: string[] = [];
const publicB: string[] = [];
const hidden: string[] = [];
const privateNames: string[] = [];

async function createAll(bodies: Array<Record<string, unknown>>, path: string, by: Auth) {
  for (let i = 0; i < bodies.length; i += 8) {
    const replies = await Promise.all(bodies.slice(i, i + 8).map((body) => app.api.post(path, body, by)));
    for (const reply of replies) if (reply.status !== 201) throw new Error(`${path}: ${reply.status} ${reply.text}`);
  }
}

test.before(async (t) => {
  let people;
  ({ app, people } = await startTestAppWithPeople('ckapi', ['member', 'drafter']));
  member = people.member;
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'harvest-a' }, { member: people.member });
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'harvest-b' }, {});
  const dataset = (name: string, org: string, extra: Record<string, unknown> = {}) => ({
    name,
    title: `Dataset ${name}`,
    ownerOrg: org,
    licenseId: 'cc-by',
    tags: ['harvestable'],
    ...extra,
  });
  for (let i = 0; i < HARVESTED_ORG_PUBLIC; i++) publicA.push(`ha-public-${String(i).padStart(3, '0')}`);
  for (let i = 0; i < OTHER_ORG_PUBLIC; i++) publicB.push(`hb-public-${i}`);
  for (let i = 0; i < 4; i++) privateNames.push(`ha-private-${i}`);
  await createAll(
    [
      ...publicA.map((n) => dataset(n, 'harvest-a')),
      ...publicB.map((n) => dataset(n, 'harvest-b')),
      ...privateNames.map((n) => dataset(n, 'harvest-a', { private: true })),
      ...[0, 1, 2].map((i) => dataset(`ha-deleted-${i}`, 'harvest-a')),
    ],
    '/api/v1/packages',
    app.sysadmin,
  );
  for (const i of [0, 1, 2]) t.is((await app.api.delete(`/api/v1/packages/ha-deleted-${i}`, app.sysadmin)).status, 204);
  await createAll(
    [0, 1, 2].map((i) => dataset(`ha-draft-${i}`, 'harvest-a')),
    '/api/v1/packages/drafts',
    app.sysadmin,
  );
  await createAll(
    [0, 1].map((i) => ({ name: `own-draft-${i}`, tags: ['harvestable'] })),
    '/api/v1/packages/drafts',
    as(people.drafter),
  );
  hidden.push(
    ...privateNames,
    'ha-deleted-0',
    'ha-deleted-1',
    'ha-deleted-2',
    'ha-draft-0',
    'ha-draft-1',
    'ha-draft-2',
    'own-draft-0',
    'own-draft-1',
  );

  // `ckanapi dump` starts its workers as `ckanapi` from PATH: a launcher for the pinned module.
  binDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ckanapi-bin-'));
  const launcher = path.join(binDir, 'ckanapi');
  await fs.writeFile(
    launcher,
    `#!/bin/sh\nexec "${python()}" -c 'import sys; from ckanapi.cli.main import main; sys.exit(main())' "$@"\n`,
    { mode: 0o755 },
  );
});
test.after.always(async () => {
  await app?.stop();
  if (binDir) await fs.rm(binDir, { recursive: true, force: true });
});

function python(): string {
  const found = process.env.TEST_PYTHON;
  if (!found) throw new Error('TEST_PYTHON is not set: run the suite with `npm test` (test/run.ts), which provisions ckanapi');
  return found;
}

function run(file: string, args: string[], input?: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { timeout: 120_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PATH: `${binDir}${path.delimiter}${process.env.PATH}` } },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${path.basename(file)} ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
    child.stdin!.end(input ?? '');
  });
}

/** The ckanapi CLI, as `ckanapi <args> -r <site>`. */
const ckanapi = (...args: string[]) => run(path.join(binDir, 'ckanapi'), [...args, '-r', app.url]);
/** A Python script with ckanapi importable; it gets the site's URL as argv[1]. */
const pythonScript = (script: string, ...args: string[]) => run(python(), ['-c', script, app.url, ...args]);

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
const sorted = (names: string[]) => [...names].sort();
const allPublic = () => sorted([...publicA, ...publicB]);

test('ckanapi action package_search returns public datasets, never a draft, deleted or private one', async (t) => {
  const { stdout } = await ckanapi('action', 'package_search', 'q=*:*', 'rows:1000', 'fq=tags:harvestable');
  const result = JSON.parse(stdout);
  t.is(result.count, publicA.length + publicB.length);
  t.deepEqual(sorted(result.results.map((p: { name: string }) => p.name)), allPublic());
});

test('ckanapi action package_show id=… gives the dataset; a GET (-g) the same', async (t) => {
  const posted = JSON.parse((await ckanapi('action', 'package_show', `id=${publicA[0]}`)).stdout);
  t.like(posted, { name: publicA[0], type: 'dataset', state: 'active', private: false, license_title: 'Creative Commons Attribution' });
  t.like(posted.organization, { name: 'harvest-a', is_organization: true });
  const got = JSON.parse((await ckanapi('action', 'package_show', `id=${publicA[0]}`, '-g')).stdout);
  t.deepEqual(got, posted);
});

test('ckanapi search datasets q=… pages through every match once', async (t) => {
  const { stdout } = await ckanapi('search', 'datasets', 'q=tags:harvestable');
  const names = jsonLines(stdout).map((p) => p.name);
  t.deepEqual(sorted(names), allPublic());
  const words = jsonLines((await ckanapi('search', 'datasets', `q=${publicB[3]}`)).stdout).map((p) => p.name);
  t.true(words.includes(publicB[3]), 'plain words search too');
  for (const name of hidden) t.false(words.includes(name));
});

test('ckanapi dump datasets --all dumps every public dataset, and no draft, deleted or private one', async (t) => {
  const { stdout } = await ckanapi('dump', 'datasets', '--all', '-q');
  const dumped = jsonLines(stdout);
  t.deepEqual(sorted(dumped.map((p) => p.name)), allPublic());
  for (const p of dumped) t.is(p.num_resources, p.resources.length);
  const withPrivate = jsonLines((await ckanapi('dump', 'datasets', '--all', '-q', '--include-private', '--include-drafts')).stdout);
  t.deepEqual(sorted(withPrivate.map((p) => p.name)), allPublic(), 'an anonymous dump gets nothing more for asking');
});

const ERRORS_SCRIPT = `
import json, sys
from ckanapi import RemoteCKAN, NotFound, NotAuthorized, ValidationError, SearchQueryError
site, key = sys.argv[1], sys.argv[2]
calls = [
  ("anonymous", None, "package_show", {"id": "no-such-dataset"}),
  ("anonymous", None, "package_show", {"id": "ha-private-0"}),
  ("anonymous", None, "package_show", {"id": "ha-draft-1"}),
  ("anonymous", None, "package_show", {"id": "ha-deleted-0"}),
  ("bad key", "alm_not_a_real_token", "package_search", {}),
  ("anonymous", None, "package_show", {}),
  ("anonymous", None, "package_search", {"rows": "many"}),
  ("anonymous", None, "package_search", {"fq": "maintainer:someone"}),
  ("member", key, "package_show", {"id": "ha-private-0"}),
  ("member", key, "package_search", {"fq": "organization:harvest-a", "include_private": True, "rows": 1000}),
]
out = []
for who, apikey, action, params in calls:
  ckan = RemoteCKAN(site, apikey=apikey)
  try:
    result = ckan.call_action(action, params)
    out.append({"ok": True, "names": [p["name"] for p in result["results"]] if "results" in result else [result["name"]]})
  except (NotFound, NotAuthorized, ValidationError, SearchQueryError) as e:
    out.append({"error": type(e).__name__, "detail": e.args[0] if e.args else None})
print(json.dumps(out))
`;

test('ckanapi.RemoteCKAN maps the errors to NotFound, NotAuthorized, ValidationError, SearchQueryError; an API key sees private data', async (t) => {
  const [missing, privateOne, draft, deleted, badKey, noId, badRows, badField, memberShow, memberSearch] = JSON.parse(
    (await pythonScript(ERRORS_SCRIPT, member.token)).stdout,
  );
  t.is(missing.error, 'NotFound');
  t.is(privateOne.error, 'NotFound', 'a private dataset the caller may not see is not found (DESIGN: 404, never 403)');
  t.is(draft.error, 'NotFound');
  t.is(deleted.error, 'NotFound');
  t.is(badKey.error, 'NotAuthorized');
  t.is(noId.error, 'ValidationError');
  t.deepEqual(noId.detail.id, ['Missing value']);
  t.is(badRows.error, 'ValidationError');
  t.truthy(badRows.detail.rows);
  t.is(badField.error, 'SearchQueryError');
  t.deepEqual(memberShow, { ok: true, names: ['ha-private-0'] });
  t.deepEqual(sorted(memberSearch.names), sorted([...publicA, ...privateNames]));
});

/** ckanext-harvest's gather loop, step by step, over plain GETs (urllib, as the harvester's requests.get). */
const HARVESTER_SCRIPT = `
import json, sys, urllib.request, urllib.parse
site, fq = sys.argv[1], sys.argv[2]
params = {"rows": "100", "start": "0", "sort": "id asc"}
if fq:
  params["fq"] = fq
pkg_dicts, pkg_ids, previous_content, pages = [], set(), None, 0
while True:
  url = site + "/api/3/action/package_search?" + urllib.parse.urlencode(params)
  with urllib.request.urlopen(url) as reply:
    content = reply.read()
  if previous_content and content == previous_content:
    raise SystemExit("The paging doesn't seem to work. URL: %s" % url)
  previous_content = content
  page = json.loads(content).get("result", {}).get("results", [])
  pages += 1
  ids_in_page = set(p["id"] for p in page)
  duplicates = ids_in_page & pkg_ids
  page = [p for p in page if p["id"] not in duplicates]
  pkg_ids |= ids_in_page
  pkg_dicts.extend(page)
  if len(page) == 0:
    break
  params["start"] = str(int(params["start"]) + int(params["rows"]))
print(json.dumps({"pages": pages, "names": [p["name"] for p in pkg_dicts], "ids": [p["id"] for p in pkg_dicts],
                  "modified": [p["metadata_modified"] for p in pkg_dicts]}))
`;

const harvest = async (fq: string) =>
  JSON.parse((await pythonScript(HARVESTER_SCRIPT, fq)).stdout) as { pages: number; names: string[]; ids: string[]; modified: string[] };

test.serial(
  'the harvester’s paging loop (rows=100, sort=id asc, fq on organization) collects every public dataset exactly once',
  async (t) => {
    const run = await harvest('organization:harvest-a');
    t.is(run.names.length, HARVESTED_ORG_PUBLIC, 'each once');
    t.deepEqual(sorted(run.names), sorted(publicA));
    t.is(new Set(run.ids).size, run.ids.length);
    t.is(run.pages, Math.ceil(HARVESTED_ORG_PUBLIC / 100) + 1, 'full pages, then the empty page that stops it');
    t.deepEqual(run.ids, [...run.ids].sort(), 'in id order');
    const both = await harvest('organization:harvest-a OR organization:harvest-b');
    t.deepEqual(sorted(both.names), allPublic());
    const excluded = await harvest('-organization:harvest-b');
    t.deepEqual(sorted(excluded.names), sorted(publicA));
  },
);

test.serial(
  'the harvester’s incremental query (metadata_modified:[<last run>Z TO *]) collects what changed since, public only',
  async (t) => {
    const full = await harvest('organization:harvest-a');
    // The last run's start, as the harvester writes it: Python isoformat (microseconds), naive UTC, then Z.
    const lastRun = `${new Date().toISOString().slice(0, 23)}000`;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const changed = [publicA[5], publicA[50], publicA[105]];
    for (const name of [...changed, privateNames[0]]) {
      const reply = await app.api.put(
        `/api/v1/packages/${name}`,
        {
          name,
          title: `Changed ${name}`,
          ownerOrg: 'harvest-a',
          licenseId: 'cc-by',
          private: name === privateNames[0],
          tags: ['harvestable'],
        },
        app.sysadmin,
      );
      t.is(reply.status, 200, reply.text);
    }
    const published = await app.api.post('/api/v1/packages/ha-draft-0/publish', undefined, app.sysadmin);
    t.is(published.status, 200, published.text);
    t.is((await app.api.delete(`/api/v1/packages/${publicA[7]}`, app.sysadmin)).status, 204);

    const since = await harvest(`organization:harvest-a metadata_modified:[${lastRun}Z TO *]`);
    t.deepEqual(sorted(since.names), sorted([...changed, 'ha-draft-0']));
    for (const modified of since.modified) t.true(modified >= lastRun, `${modified} compared as text with ${lastRun}`);
    const before = full.modified.filter((m) => m >= lastRun);
    t.deepEqual(before, [], 'nothing of the earlier run is newer than its start');

    // Restore the fixtures the other tests read.
    t.is((await app.api.post(`/api/v1/packages/${publicA[7]}/restore`, undefined, app.sysadmin)).status, 200);
    publicA.push('ha-draft-0');
    hidden.splice(hidden.indexOf('ha-draft-0'), 1);
  },
);

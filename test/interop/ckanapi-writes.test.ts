import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ckanGet, ckanPost, resultOf } from '../helpers/ckan.ts';
import { as, type TestUser } from '../helpers/client.ts';
import { CATEGORIES, ORGANIZATIONS } from '../helpers/groups.ts';
import { RECORD, RECORD_CKAN_NAMES } from '../helpers/metadata-record.ts';

/**
 * The CKAN write side through the pinned `ckanapi` (issue 29, "Done when"): `ckanapi load datasets` of a
 * `ckanapi dump datasets --all` from another Almanac (after `load organizations` and `load groups` of its
 * dumps) recreates every public dataset; `ckanapi action`
 * creates, patches, uploads and deletes; RemoteCKAN maps each refusal to its exception.
 */

let source: TestApp;
let target: TestApp;
let binDir: string;
let workDir: string;
let editor: TestUser;

const ORGS = ['mig-water', 'mig-roads'];
const CATEGORY = 'mig-environment';
const PUBLIC = 12;

const CKAN_RECORD = Object.fromEntries(Object.entries(RECORD).map(([k, v]) => [RECORD_CKAN_NAMES[k as keyof typeof RECORD], v]));

/** A source dataset: every kind of value a dump carries. */
const sourceDict = (i: number, extra: Record<string, unknown> = {}) => ({
  name: `mig-${String(i).padStart(2, '0')}`,
  title: `Migrated dataset ${i}`,
  notes: `About dataset ${i}`,
  owner_org: ORGS[i % 2],
  license_id: i % 3 ? 'cc-by' : 'odc-odbl',
  version: `1.${i}`,
  author: 'Data Team',
  author_email: 'data@example.org',
  tags: [{ name: 'migrated' }, { name: `tag-${i % 4}` }],
  groups: i % 2 ? [{ name: CATEGORY }] : [],
  extras: [
    { key: 'legacy_id', value: `L-${i}` },
    { key: 'json_value', value: '{"a": 1}' },
  ],
  ...(i % 3 === 0 ? CKAN_RECORD : { frequency: 'R/P1M', language: ['en'] }),
  resources: Array.from({ length: (i % 3) + 1 }, (_, r) => ({
    url: `https://files.example/${i}/${r}.csv`,
    name: `File ${r}`,
    format: r % 2 ? 'JSON' : 'CSV',
    description: `Part ${r}`,
    byte_size: 1000 + r,
  })),
  ...extra,
});

test.before(async () => {
  [source, target] = await Promise.all([startTestApp(), startTestApp()]);
  editor = await target.api.newUser('ckw-editor');
  // The source's organizations and category; the target gets them by `ckanapi load` below.
  for (const name of ORGS) {
    const res = await source.api.post(ORGANIZATIONS, { name, title: `Org ${name}` }, source.sysadmin);
    if (res.status !== 201) throw new Error(res.text);
  }
  const cat = await source.api.post(CATEGORIES, { name: CATEGORY, title: 'Environment' }, source.sysadmin);
  if (cat.status !== 201) throw new Error(cat.text);
  for (let i = 0; i < PUBLIC; i++) resultOf(await ckanPost(source.api, 'package_create', sourceDict(i), source.sysadmin));
  resultOf(await ckanPost(source.api, 'package_create', sourceDict(90, { private: true }), source.sysadmin));
  resultOf(await ckanPost(source.api, 'package_create', { name: 'mig-draft', title: 'Draft', state: 'draft' }, source.sysadmin));
  resultOf(await ckanPost(source.api, 'package_create', sourceDict(91), source.sysadmin));
  resultOf(await ckanPost(source.api, 'package_delete', { id: 'mig-91' }, source.sysadmin));

  binDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ckanapi-bin-'));
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ckanapi-work-'));
  // `ckanapi dump` and `load` start their workers as `ckanapi` from PATH: a launcher for the pinned module.
  await fs.writeFile(
    path.join(binDir, 'ckanapi'),
    `#!/bin/sh\nexec "${python()}" -c 'import sys; from ckanapi.cli.main import main; sys.exit(main())' "$@"\n`,
    { mode: 0o755 },
  );
});
test.after.always(async () => {
  await Promise.all([source?.stop(), target?.stop()]);
  for (const dir of [binDir, workDir]) if (dir) await fs.rm(dir, { recursive: true, force: true });
});

function python(): string {
  const found = process.env.TEST_PYTHON;
  if (!found) throw new Error('TEST_PYTHON is not set: run the suite with `npm test` (test/run.ts), which provisions ckanapi');
  return found;
}

function run(file: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: 300_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PATH: `${binDir}${path.delimiter}${process.env.PATH}` } },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${path.basename(file)} ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}

const ckanapi = (app: TestApp, ...args: string[]) => run(path.join(binDir, 'ckanapi'), [...args, '-r', app.url]);
const action = async (app: TestApp, key: string, ...args: string[]) =>
  JSON.parse((await ckanapi(app, 'action', ...args, '-a', key)).stdout);

/**
 * A dict without what each site makes its own: the dataset's and its resources' dates, the creator, tag
 * ids, when the organization was made here. Ids stay: a sysadmin's load keeps those of the datasets and
 * their resources, as organization_create and group_create keep theirs.
 */
function portable(dict: Record<string, any>) {
  const { metadata_created: _c, metadata_modified: _m, creator_user_id: _u, ...rest } = dict;
  const { created: _oc, ...organization } = rest.organization;
  return {
    ...rest,
    organization,
    tags: rest.tags.map(({ id: _tid, ...tag }: Record<string, unknown>) => tag),
    resources: rest.resources.map(({ created: _rc, metadata_modified: _rm, ...r }: Record<string, unknown>) => r),
  };
}

test.serial('ckanapi load datasets of another Almanac’s `ckanapi dump datasets --all` recreates every public dataset', async (t) => {
  // A migration's order: organizations and groups first (organization_create/group_create keep their ids), then datasets.
  for (const thing of ['organizations', 'groups']) {
    const file = path.join(workDir, `${thing}.jsonl`);
    await ckanapi(source, 'dump', thing, '--all', '-q', '-O', file);
    await ckanapi(target, 'load', thing, '-I', file, '-a', target.adminToken, '-q');
  }
  t.deepEqual(resultOf(await ckanGet(target.api, 'organization_list')), [...ORGS].sort());
  t.deepEqual(resultOf(await ckanGet(target.api, 'group_list')), [CATEGORY]);
  const added = await target.api.post(`${ORGANIZATIONS}/mig-water/members`, { user: editor.id, role: 'editor' }, target.sysadmin);
  t.is(added.status, 201, added.text);

  const dumpFile = path.join(workDir, 'datasets.jsonl');
  await ckanapi(source, 'dump', 'datasets', '--all', '-q', '-O', dumpFile);
  const dumped = (await fs.readFile(dumpFile, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  t.is(dumped.length, PUBLIC, 'the dump holds the public datasets only');

  const load = await ckanapi(
    target,
    'load',
    'datasets',
    '-I',
    dumpFile,
    '-p',
    '2',
    '-a',
    target.adminToken,
    '-l',
    path.join(workDir, 'load.log'),
  );
  const log = (await fs.readFile(path.join(workDir, 'load.log'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  t.is(log.length, PUBLIC, load.stderr);
  t.deepEqual(
    log.filter(([, , , error]) => error !== null),
    [],
    'no record failed',
  );
  t.true(log.every(([, , act]) => act === 'create'));

  for (const original of dumped) {
    const copy = resultOf(await ckanGet(target.api, 'package_show', { id: original.name }));
    t.deepEqual(portable(copy), portable(original), original.name);
  }
  // Loaded again, each is found by name and updated to the same dict: a migration can be re-run.
  await ckanapi(target, 'load', 'datasets', '-I', dumpFile, '-a', target.adminToken, '-l', path.join(workDir, 'again.log'));
  const again = (await fs.readFile(path.join(workDir, 'again.log'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  t.true(
    again.every(([, , act, error]) => act === 'update' && error === null),
    JSON.stringify(again.slice(0, 2)),
  );
  for (const original of dumped) {
    const copy = resultOf(await ckanGet(target.api, 'package_show', { id: original.name }));
    t.deepEqual(portable(copy), portable(original), `${original.name} after a second load`);
  }
  t.is(resultOf(await ckanGet(target.api, 'package_list')).length, PUBLIC);
  const sourceOrg = resultOf(await ckanGet(source.api, 'organization_show', { id: 'mig-water' }));
  t.is(resultOf(await ckanGet(target.api, 'organization_show', { id: 'mig-water' })).id, sourceOrg.id, 'the same organization, by id');
});

test.serial('ckanapi action package_create, package_patch, resource_create with a file, package_delete', async (t) => {
  const key = editor.token;
  const created = await action(
    target,
    key,
    'package_create',
    'name=cli-made',
    'title=Made by the CLI',
    'owner_org=mig-water',
    'license_id=cc-by',
    'tags:[{"name": "cli"}]',
    'extras:[{"key": "k", "value": "v"}]',
    'frequency=R/P1W',
  );
  t.like(created, { name: 'cli-made', state: 'active', frequency: 'R/P1W', extras: [{ key: 'k', value: 'v' }] });
  const patched = await action(target, key, 'package_patch', 'id=cli-made', 'notes=Patched by the CLI');
  t.like(patched, { notes: 'Patched by the CLI', title: 'Made by the CLI', frequency: 'R/P1W' });

  const file = path.join(workDir, 'rivers.csv');
  const text = 'river,length_km\nRhine,1233\nDanube,2850\n';
  await fs.writeFile(file, text);
  const resource = await action(target, key, 'resource_create', 'package_id=cli-made', 'name=Rivers', 'format=CSV', `upload@${file}`);
  t.like(resource, { name: 'Rivers', url_type: 'upload', size: Buffer.byteLength(text) });
  const bytes = await fetch(resource.url);
  t.is(await bytes.text(), text);
  t.is(resultOf(await ckanGet(target.api, 'package_show', { id: 'cli-made' })).resources[0].id, resource.id);

  t.is(await action(target, key, 'package_delete', 'id=cli-made'), null);
  t.is((await ckanGet(target.api, 'package_show', { id: 'cli-made' })).status, 404);
});

test.serial('ckanapi load --upload-resources brings an uploaded file over as a file, under its resource’s old id', async (t) => {
  const text = 'station,level_m\nKaub,1.92\nMaxau,4.05\n';
  const file = path.join(workDir, 'levels.csv');
  await fs.writeFile(file, text);
  await action(source, source.adminToken, 'package_create', 'name=mig-upload', 'owner_org=mig-water', 'license_id=cc-by');
  const uploaded = await action(source, source.adminToken, 'resource_create', 'package_id=mig-upload', 'name=Levels', `upload@${file}`);
  const dumpFile = path.join(workDir, 'upload.jsonl');
  await ckanapi(source, 'dump', 'datasets', 'mig-upload', '-q', '-O', dumpFile);
  await ckanapi(target, 'load', 'datasets', '-I', dumpFile, '--upload-resources', '-a', target.adminToken, '-q');

  const copy = resultOf(await ckanGet(target.api, 'resource_show', { id: uploaded.id }));
  t.like(copy, { url_type: 'upload', size: Buffer.byteLength(text), name: 'Levels' });
  t.true(copy.url.startsWith(target.url), copy.url);
  t.is(await (await fetch(copy.url)).text(), text);
});

const ERRORS_SCRIPT = `
import json, sys
from ckanapi import RemoteCKAN, NotFound, NotAuthorized, ValidationError
site, key = sys.argv[1], sys.argv[2]
calls = [
  (None, "package_create", {"name": "anon-made", "title": "x", "owner_org": "mig-water", "license_id": "cc-by"}),
  (key, "package_create", {"name": "roads-made", "title": "x", "owner_org": "mig-roads", "license_id": "cc-by"}),
  (key, "package_create", {"name": "no-org", "title": "x", "author_email": "nope", "resources": [{"url": "https://files.example/a.csv"}, {"url": "bad"}]}),
  (key, "package_patch", {"id": "never-was", "title": "x"}),
  (key, "resource_delete", {"id": "00000000-0000-0000-0000-000000000000"}),
  (key, "package_update", {"id": "mig-01", "title": "taken over"}),
]
out = []
for apikey, action, params in calls:
  try:
    RemoteCKAN(site, apikey=apikey).call_action(action, params)
    out.append({"ok": True})
  except ValidationError as e:
    out.append({"error": "ValidationError", "fields": e.error_dict})
  except (NotFound, NotAuthorized) as e:
    out.append({"error": type(e).__name__})
print(json.dumps(out))
`;

test.serial('RemoteCKAN maps every refusal: NotAuthorized, ValidationError with the fields, NotFound', async (t) => {
  const { stdout } = await run(python(), ['-c', ERRORS_SCRIPT, target.url, editor.token]);
  const [anonymous, otherOrg, invalid, missing, missingResource, notEditor] = JSON.parse(stdout);
  t.is(anonymous.error, 'NotAuthorized');
  t.is(otherOrg.error, 'NotAuthorized', 'an editor of another organization');
  t.is(invalid.error, 'ValidationError');
  t.like(invalid.fields, { __type: 'Validation Error', owner_org: ['Missing value'], license_id: ['Missing value'] });
  t.truthy(invalid.fields.author_email);
  t.deepEqual(invalid.fields.resources, [{}, { url: ['must be an http(s) or ftp URL'] }]);
  t.is(missing.error, 'NotFound');
  t.is(missingResource.error, 'NotFound');
  t.is(notEditor.error, 'NotAuthorized', 'mig-01 belongs to mig-roads, where the editor is no one');
  t.is((await ckanGet(target.api, 'package_show', { id: 'no-org' }, as(editor))).status, 404, 'nothing half-written');
});

test('ckanapi reads history: package_activity_list, activity_diff and package_show with activity_id', async (t) => {
  const key = source.adminToken;
  await action(source, key, 'package_create', 'name=mig-history', 'title=Before', 'owner_org=mig-water', 'license_id=cc-by');
  await action(source, key, 'package_patch', 'id=mig-history', 'title=After');
  const list = await action(source, key, 'package_activity_list', 'id=mig-history');
  t.deepEqual(
    list.map((a: { activity_type: string }) => a.activity_type),
    ['changed package', 'new package'],
  );
  const diff = await action(source, key, 'activity_diff', `id=${list[0].id}`, 'object_type=package', 'diff_type=unified');
  t.true(diff.diff.includes('-      "title": "Before",') || diff.diff.includes('-    "title": "Before",'), diff.diff);
  t.true(/\+\s+"title": "After",/.test(diff.diff), diff.diff);
  t.deepEqual(
    diff.activities.map((a: { id: string }) => a.id),
    [list[1].id, list[0].id],
  );
  const old = await action(source, key, 'package_show', 'id=mig-history', `activity_id=${list[1].id}`);
  t.is(old.title, 'Before');
  // Anonymous callers get the same list: the dataset has been public since it was made.
  const anonymous = JSON.parse((await ckanapi(source, 'action', 'package_activity_list', 'id=mig-history')).stdout);
  t.is(anonymous.length, 2);
});

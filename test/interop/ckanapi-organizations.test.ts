import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ckanGet, resultOf } from '../helpers/ckan.ts';
import type { TestUser } from '../helpers/client.ts';
import { CATEGORIES, ORGANIZATIONS } from '../helpers/groups.ts';

/**
 * Organizations, groups and members through the pinned `ckanapi` (issue 29 §1): `ckanapi dump
 * organizations/groups` of one Almanac loaded into another with `ckanapi load` (ids, fields and, from a
 * sysadmin's dump, members kept; a second load changes nothing), `ckanapi action organization_member_create`,
 * and RemoteCKAN's NotAuthorized, ValidationError and NotFound for these actions.
 */

let source: TestApp;
let target: TestApp;
let binDir: string;
let workDir: string;
/** The same usernames on both sites, as a migration recreates its users before its organizations. */
const alice: Record<'source' | 'target', TestUser> = {} as never;
let bob: TestUser;

const ORGS = [
  { name: 'load-water', title: 'Water Board', description: 'Rivers and lakes', imageUrl: 'https://example.org/water.png' },
  { name: 'load-roads', title: 'Roads Agency', description: null, imageUrl: null },
];
const GROUP = { name: 'load-environment', title: 'Environment', description: 'Green things', imageUrl: null };

test.before(async () => {
  [source, target] = await Promise.all([startTestApp(), startTestApp()]);
  [alice.source, alice.target, bob] = await Promise.all([
    source.api.newUser('load-alice'),
    target.api.newUser('load-alice'),
    target.api.newUser('load-bob'),
  ]);
  for (const org of ORGS) {
    const res = await source.api.post(ORGANIZATIONS, org, source.sysadmin);
    if (res.status !== 201) throw new Error(res.text);
  }
  const group = await source.api.post(CATEGORIES, GROUP, source.sysadmin);
  if (group.status !== 201) throw new Error(group.text);
  const member = await source.api.post(`${ORGANIZATIONS}/load-water/members`, { user: alice.source.id, role: 'editor' }, source.sysadmin);
  if (member.status !== 201) throw new Error(member.text);

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
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, PATH: `${binDir}${path.delimiter}${process.env.PATH}` } },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${path.basename(file)} ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}

const ckanapi = (app: TestApp, ...args: string[]) => run(path.join(binDir, 'ckanapi'), [...args, '-r', app.url]);
const jsonLines = async (file: string) =>
  (await fs.readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const members = async (app: TestApp, base: string, name: string) =>
  Object.fromEntries(
    (await app.api.get(`${base}/${name}/members`, app.sysadmin)).body.results.map((m: { username: string; role: string }) => [
      m.username,
      m.role,
    ]),
  );
/** What a loaded group must keep: everything but the moment it was made and what the target counts itself. */
const fields = ({ id, name, title, description, image_url, type, is_organization, state }: Record<string, unknown>) => ({
  id,
  name,
  title,
  description,
  image_url,
  type,
  is_organization,
  state,
});

test.serial('ckanapi load organizations and groups of another Almanac’s dump recreates them, ids and members kept', async (t) => {
  const orgDump = path.join(workDir, 'organizations.jsonl');
  const groupDump = path.join(workDir, 'groups.jsonl');
  await ckanapi(source, 'dump', 'organizations', '--all', '-q', '-U', '-O', orgDump, '-a', source.adminToken);
  await ckanapi(source, 'dump', 'groups', '--all', '-q', '-O', groupDump);
  const dumpedOrgs = await jsonLines(orgDump);
  t.deepEqual(dumpedOrgs.map((o) => o.name).sort(), ORGS.map((o) => o.name).sort());
  t.deepEqual(
    dumpedOrgs.find((o) => o.name === 'load-water').users.map((u: { name: string; capacity: string }) => [u.name, u.capacity]),
    [['load-alice', 'editor']],
  );
  const dumpedGroups = await jsonLines(groupDump);
  t.false('users' in dumpedGroups[0], 'an anonymous dump has no members, so a load leaves them as they are');

  await ckanapi(target, 'load', 'organizations', '-I', orgDump, '-q', '-a', target.adminToken);
  await ckanapi(target, 'load', 'groups', '-I', groupDump, '-q', '-a', target.adminToken);
  for (const dumped of dumpedOrgs) {
    const loaded = resultOf(await ckanGet(target.api, 'organization_show', { id: dumped.id }));
    t.deepEqual(fields(loaded), fields(dumped), dumped.name);
  }
  t.deepEqual(fields(resultOf(await ckanGet(target.api, 'group_show', { id: dumpedGroups[0].id }))), fields(dumpedGroups[0]));
  t.deepEqual(await members(target, ORGANIZATIONS, 'load-water'), { 'load-alice': 'editor' }, 'the member, by username on this site');

  // A second load finds each one and updates it: nothing changes, the members added meanwhile stay.
  const added = await target.api.post(`${CATEGORIES}/load-environment/members`, { user: bob.id, role: 'admin' }, target.sysadmin);
  t.is(added.status, 201);
  await ckanapi(target, 'load', 'organizations', '-I', orgDump, '-q', '-a', target.adminToken);
  await ckanapi(target, 'load', 'groups', '-I', groupDump, '-q', '-a', target.adminToken);
  t.deepEqual(resultOf(await ckanGet(target.api, 'organization_list')).sort(), ORGS.map((o) => o.name).sort());
  t.deepEqual(await members(target, ORGANIZATIONS, 'load-water'), { 'load-alice': 'editor' });
  t.deepEqual(await members(target, CATEGORIES, 'load-environment'), { 'load-bob': 'admin' });
  for (const dumped of dumpedOrgs) {
    t.deepEqual(fields(resultOf(await ckanGet(target.api, 'organization_show', { id: dumped.name }))), fields(dumped));
  }
});

test.serial('ckanapi action organization_member_create id=… username=… role=editor, then organization_member_delete', async (t) => {
  const action = async (...args: string[]) => JSON.parse((await ckanapi(target, 'action', ...args, '-a', target.adminToken)).stdout);
  const member = await action('organization_member_create', 'id=load-roads', `username=${bob.username}`, 'role=editor');
  t.like(member, { table_name: 'user', table_id: bob.id, capacity: 'editor', state: 'active' });
  t.deepEqual(await members(target, ORGANIZATIONS, 'load-roads'), { 'load-bob': 'editor' });
  const mine = JSON.parse(
    (await ckanapi(target, 'action', 'organization_list_for_user', 'permission=create_dataset', '-a', bob.token)).stdout,
  );
  t.deepEqual(
    mine.map((o: { name: string; capacity: string }) => [o.name, o.capacity]),
    [['load-roads', 'editor']],
  );
  const shown = JSON.parse((await ckanapi(target, 'action', 'user_show', `id=${bob.username}`, '-a', bob.token)).stdout);
  t.like(shown, { name: bob.username, email: `${bob.username}@example.org` });
  await action('organization_member_delete', 'id=load-roads', `username=${bob.username}`);
  t.deepEqual(await members(target, ORGANIZATIONS, 'load-roads'), {});
  const patched = await action('organization_patch', 'id=load-roads', 'title=Roads and Bridges');
  t.like(patched, { name: 'load-roads', title: 'Roads and Bridges' });
});

const ERRORS_SCRIPT = `
import json, sys
from ckanapi import RemoteCKAN, NotFound, NotAuthorized, ValidationError
site, admin, user = sys.argv[1], sys.argv[2], sys.argv[3]
calls = [
  (None, "organization_create", {"name": "anon-org"}),
  (user, "organization_create", {"name": "user-org"}),
  (user, "organization_member_create", {"id": "load-water", "username": "load-bob", "role": "admin"}),
  (user, "organization_update", {"id": "load-water", "title": "Mine now"}),
  (user, "group_delete", {"id": "load-environment"}),
  (None, "user_show", {"id": "load-bob"}),
  (admin, "organization_create", {"name": "Bad Name", "image_url": "ftp://x"}),
  (admin, "organization_member_create", {"id": "load-water", "username": "nobody-here", "role": "editor"}),
  (admin, "organization_member_create", {"id": "load-water", "username": "load-bob", "role": "owner"}),
  (admin, "member_create", {"id": "load-water", "object": "some-dataset", "object_type": "package", "capacity": "public"}),
  (admin, "organization_member_create", {"id": "no-such-org", "username": "load-bob", "role": "editor"}),
  (admin, "organization_patch", {"id": "no-such-org", "title": "x"}),
  (admin, "group_member_delete", {"id": "load-environment", "username": "nobody-here"}),
  (user, "user_show", {"id": "nobody-here"}),
]
out = []
for apikey, action, params in calls:
  try:
    RemoteCKAN(site, apikey=apikey).call_action(action, params)
    out.append({"ok": True})
  except ValidationError as e:
    out.append({"error": "ValidationError", "fields": sorted(k for k in e.error_dict if k not in ("__type", "message"))})
  except (NotFound, NotAuthorized) as e:
    out.append({"error": type(e).__name__})
print(json.dumps(out))
`;

test.serial('RemoteCKAN maps these actions’ refusals to NotAuthorized, ValidationError with the fields, NotFound', async (t) => {
  const { stdout } = await run(python(), ['-c', ERRORS_SCRIPT, target.url, target.adminToken, alice.target.token]);
  t.deepEqual(JSON.parse(stdout), [
    { error: 'NotAuthorized' },
    { error: 'NotAuthorized' },
    { error: 'NotAuthorized' },
    { error: 'NotAuthorized' },
    { error: 'NotAuthorized' },
    { error: 'NotAuthorized' },
    { error: 'ValidationError', fields: ['image_url', 'name'] },
    { error: 'ValidationError', fields: ['username'] },
    { error: 'ValidationError', fields: ['role'] },
    { error: 'ValidationError', fields: ['object_type'] },
    { error: 'NotFound' },
    { error: 'NotFound' },
    { error: 'NotFound' },
    { error: 'NotFound' },
  ]);
  t.is((await target.api.get(`${ORGANIZATIONS}/load-water`)).body.title, 'Water Board', 'nothing refused was written');
  t.deepEqual(await members(target, ORGANIZATIONS, 'load-water'), { 'load-alice': 'editor' });
});

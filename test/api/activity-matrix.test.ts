import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { ckanGet, resultOf } from '../helpers/ckan.ts';
import { anonymous, as, type Auth } from '../helpers/client.ts';
import { groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { unique } from '../helpers/names.ts';

/**
 * The visibility matrix of history (issue 30): datasets that went through draft, private, public and deleted
 * periods in many orders, read by five kinds of caller through REST, the CKAN API, MCP and the web page.
 * What each caller must see comes from an oracle written here, apart from the service's rule: an activity
 * is shown to a caller who may read the dataset now and could read it in the period the activity began,
 * and nothing of a hidden period (its title) reaches them, not even as a diff's `before`.
 */

type Period = 'draft' | 'private' | 'public' | 'deleted';
type Caller = 'anonymous' | 'outsider' | 'member' | 'editor' | 'sysadmin';
const CALLERS: Caller[] = ['anonymous', 'outsider', 'member', 'editor', 'sysadmin'];

/** Who may read a dataset in each period (spec §5): the editor is also the creator of the drafts. */
const READS: Record<Period, Caller[]> = {
  draft: ['editor', 'sysadmin'],
  private: ['member', 'editor', 'sysadmin'],
  public: CALLERS,
  deleted: ['editor', 'sysadmin'],
};

/** Each path: how the dataset begins, then each later period; every step changes the title too. */
const PATHS: Period[][] = [
  ['draft', 'public'],
  ['draft', 'private'],
  ['draft', 'public', 'private'],
  ['private', 'public'],
  ['public', 'private'],
  ['public', 'deleted'],
  ['private', 'deleted', 'private'],
  ['public', 'private', 'public', 'deleted', 'public'],
  ['draft', 'private', 'deleted'],
];

let app: TestApp;
let people: People<'admin' | 'editor' | 'member' | 'outsider'>;
let org: { name: string };

test.before(async () => {
  ({ app, people } = await startTestAppWithPeople('actm', ['admin', 'editor', 'member', 'outsider']));
});
test.after.always(async () => app?.stop());

const PKG = '/api/v1/packages';
const authOf = (caller: Caller): Auth =>
  caller === 'anonymous' ? anonymous : caller === 'sysadmin' ? app.sysadmin : as(people[caller as 'editor' | 'member' | 'outsider']);
const tokenOf = (caller: Caller) =>
  caller === 'anonymous' ? undefined : caller === 'sysadmin' ? app.adminToken : people[caller as 'editor' | 'member' | 'outsider'].token;

/** Walks one path; returns the dataset and its activities (oldest first) with the period each began. */
async function walk(path: Period[]) {
  const editor = as(people.editor);
  const name = unique('mx');
  const title = (i: number) => `${name} title ${i} ${path[i]}`;
  const fields = (i: number, isPrivate: boolean) => ({
    name,
    title: title(i),
    ownerOrg: org.name,
    licenseId: 'cc-by-4.0',
    private: isPrivate,
  });
  const first = path[0]!;
  const made =
    first === 'draft'
      ? await app.api.post(`${PKG}/drafts`, fields(0, path[1] === 'private'), editor)
      : await app.api.post(PKG, fields(0, first === 'private'), editor);
  if (made.status !== 201) throw new Error(made.text);
  for (let i = 1; i < path.length; i++) {
    const [was, now] = [path[i - 1]!, path[i]!];
    let reply;
    if (was === 'draft') {
      // The title changes in the draft's last edit; the publish that follows is its own activity.
      await app.api.put(`${PKG}/${name}`, { title: title(i) }, editor);
      reply = await app.api.post(`${PKG}/${name}/publish`, {}, editor);
    } else if (now === 'deleted') {
      reply = await app.api.delete(`${PKG}/${name}`, editor);
    } else if (was === 'deleted') {
      reply = await app.api.post(`${PKG}/${name}/restore`, {}, app.sysadmin);
    } else {
      reply = await app.api.put(`${PKG}/${name}`, fields(i, now === 'private'), editor);
    }
    if (reply.status >= 300) throw new Error(`${path.join('→')} step ${i}: ${reply.status} ${reply.text}`);
  }
  const all = (await app.api.get(`${PKG}/${name}/activity?limit=100`, app.sysadmin)).body.results as Array<{ id: string; action: string }>;
  return { name, all: [...all].reverse(), title };
}

/** The periods each recorded activity began, from the path: a draft step is two activities (its edit, then the publish). */
const periodsOf = (path: Period[]) => path.flatMap((p, i) => (i > 0 && path[i - 1] === 'draft' ? ['draft' as Period, p] : [p]));

async function mcpHistory(caller: Caller, name: string) {
  const client = new Client({ name: 'almanac-matrix', version: '1.0.0' });
  const token = tokenOf(caller);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}/api/mcp`), {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
    }),
  );
  try {
    const result = (await client.callTool({ name: 'get_dataset_history', arguments: { nameOrId: name, limit: 100 } })) as CallToolResult;
    const text = (result.content[0] as { text: string }).text;
    return {
      ids: result.isError ? [] : ((result.structuredContent as { results: Array<{ id: string }> }).results ?? []).map((a) => a.id),
      text,
    };
  } finally {
    await client.close();
  }
}

async function seenBy(caller: Caller, name: string) {
  const auth = authOf(caller);
  const rest = await app.api.get(`${PKG}/${name}/activity?limit=100`, auth);
  const ckan = await ckanGet(app.api, 'package_activity_list', { id: name, limit: 100 }, auth);
  const web = await app.api.get(`/dataset/${name}/history`, { ...auth, headers: { Accept: 'text/html' } });
  const mcp = await mcpHistory(caller, name);
  return {
    rest: { ids: rest.status === 200 ? (rest.body.results as Array<{ id: string }>).map((a) => a.id) : [], text: rest.text },
    ckan: { ids: ckan.status === 200 ? (resultOf(ckan) as Array<{ id: string }>).map((a) => a.id) : [], text: ckan.text },
    mcp,
    web: { ids: web.status === 200 ? [...web.text.matchAll(/id="activity-([0-9a-f-]{36})"/g)].map((m) => m[1]!) : [], text: web.text },
  };
}

test('history through time, as a matrix: nine paths through draft, private, public and deleted × five callers × REST, CKAN, MCP and web', async (t) => {
  org = await groupWithMembers(t, app, ORGANIZATIONS, { name: unique('mxorg') }, people);
  for (const path of PATHS) {
    const { name, all, title } = await walk(path);
    const periods = periodsOf(path);
    t.is(all.length, periods.length, `${path.join('→')}: one activity per step (${all.map((a) => a.action).join(', ')})`);
    const now = path.at(-1)!;
    for (const caller of CALLERS) {
      const visible = READS[now].includes(caller) ? all.filter((_, i) => READS[periods[i]!].includes(caller)) : [];
      const expected = visible.map((a) => a.id).reverse();
      // The titles of the periods the caller may not see.
      const hidden = path.map((_, i) => title(i)).filter((_, i) => !READS[path[i]!].includes(caller) || !READS[now].includes(caller));
      const seen = await seenBy(caller, name);
      for (const [surface, { ids, text }] of Object.entries(seen)) {
        const where = `${path.join('→')} as ${caller} through ${surface}`;
        t.deepEqual(ids, expected, where);
        for (const secret of hidden) t.false(text.includes(secret), `${where}: "${secret}" leaked`);
      }
    }
  }
});

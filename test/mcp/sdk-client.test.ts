import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { queryRunning, until, type TestApp } from '../helpers/app.ts';
import { CSV_QUERY, csvQueryMarkdown, MCP_TOOL_NAMES, startAppWithMcpCatalog, type McpFixture } from './fixtures.ts';

/**
 * /api/mcp through the official TypeScript SDK client: initialize, tools/list, every tool, paging,
 * each error, and private data per caller (anonymous, member of another organization, member, sysadmin).
 */

let app: TestApp;
let fx: McpFixture;

test.before(async () => {
  ({ app, fx } = await startAppWithMcpCatalog());
});
test.after.always(async () => app?.stop());

async function connect(token?: string) {
  const client = new Client({ name: 'almanac-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/api/mcp`), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
  await client.connect(transport);
  return client;
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const structured = <T>(result: unknown) => (result as CallToolResult).structuredContent as T;

test.serial('initialize names the server; tools/list has the nine read-only tools with their parameters', async (t) => {
  const client = await connect();
  t.is(client.getServerVersion()?.name, 'almanac');
  t.regex(client.getInstructions() ?? '', /search_datasets/);
  const { tools } = await client.listTools();
  t.deepEqual(tools.map((tool) => tool.name).sort(), MCP_TOOL_NAMES);
  for (const tool of tools) {
    t.true(tool.annotations?.readOnlyHint, `${tool.name} is read-only`);
    t.truthy(tool.description, `${tool.name} is described`);
  }
  const search = tools.find((tool) => tool.name === 'search_datasets')!;
  t.deepEqual(search.inputSchema.required, ['q']);
  t.like(search.inputSchema.properties, { limit: { default: 10, maximum: 50 }, offset: { default: 0 }, semantic: { default: true } });
  t.like(tools.find((tool) => tool.name === 'list_tags')!.inputSchema.properties, { limit: { default: 50, maximum: 200 } });
  t.like(tools.find((tool) => tool.name === 'list_organizations')!.inputSchema.properties, { limit: { default: 20, maximum: 100 } });
  await client.close();
});

test.serial('the agent path: search → get_dataset → get_resource → get_resource_schema → query_resource', async (t) => {
  const client = await connect();
  const found = structured<{ count: number; results: Array<{ name: string }> }>(
    await client.callTool({ name: 'search_datasets', arguments: { q: 'city temperatures' } }),
  );
  t.is(found.results[0]?.name, fx.publicName);
  const dataset = structured<{ name: string; resources: Array<{ id: string }> }>(
    await client.callTool({ name: 'get_dataset', arguments: { nameOrId: fx.publicName } }),
  );
  t.deepEqual(
    dataset.resources.map((r) => r.id),
    [fx.csvId, fx.linkId],
  );
  const resource = structured<{ downloadUrl: string }>(await client.callTool({ name: 'get_resource', arguments: { id: fx.csvId } }));
  t.is(resource.downloadUrl, `${app.url}/api/v1/resources/${fx.csvId}/download`);
  t.is(
    structured<{ downloadUrl: string }>(await client.callTool({ name: 'get_resource', arguments: { id: fx.linkId } })).downloadUrl,
    'https://example.org/stations.json',
  );
  const schema = structured<{ table: string; exampleQuery: string; schema: { columns: Array<{ name: string }> } }>(
    await client.callTool({ name: 'get_resource_schema', arguments: { id: fx.csvId } }),
  );
  t.is(schema.table, 'data');
  t.deepEqual(
    schema.schema.columns.map((c) => c.name),
    ['city', 'avg temp', 'note'],
  );
  t.is(schema.exampleQuery, 'SELECT city, "avg temp", note FROM data LIMIT 10');
  const example = await client.callTool({ name: 'query_resource', arguments: { id: fx.csvId, sql: schema.exampleQuery } });
  t.falsy(example.isError, text(example));
  const answer = await client.callTool({
    name: 'query_resource',
    arguments: { id: fx.csvId, sql: CSV_QUERY },
  });
  t.is(text(answer), csvQueryMarkdown(structured<{ elapsedMs: number }>(answer).elapsedMs));
  t.like(structured(answer), { rowCount: 3, truncated: false });
  await client.close();
});

test.serial('lists page through organizations, categories and tags', async (t) => {
  const client = await connect();
  const page1 = structured<{ count: number; results: Array<{ name: string }> }>(
    await client.callTool({ name: 'list_organizations', arguments: { limit: 1 } }),
  );
  const page2 = structured<{ count: number; results: Array<{ name: string }> }>(
    await client.callTool({ name: 'list_organizations', arguments: { limit: 1, offset: 1 } }),
  );
  t.is(page1.count, 2);
  t.deepEqual(
    [...page1.results, ...page2.results].map((o) => o.name),
    ['climate-office', 'other-office'],
  );
  t.deepEqual(
    structured<{ results: Array<{ name: string }> }>(
      await client.callTool({ name: 'list_organizations', arguments: { q: 'clim' } }),
    ).results.map((o) => o.name),
    ['climate-office'],
  );
  t.deepEqual(
    structured<{ results: Array<{ name: string }> }>(await client.callTool({ name: 'list_groups', arguments: {} })).results.map(
      (o) => o.name,
    ),
    ['weather'],
  );
  const tags = structured<{ results: Array<{ name: string }> }>(await client.callTool({ name: 'list_tags', arguments: { q: 'temp' } }));
  t.deepEqual(
    tags.results.map((tag) => tag.name),
    ['temperature'],
  );
  await client.close();
});

test.serial('bad input and refusals are tool errors the agent can read, and the session goes on', async (t) => {
  const client = await connect();
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['search_datasets', { q: 'x', limit: 51 }, /limit|50/i],
    ['search_datasets', { q: 'x', offset: -1 }, /offset/i],
    ['search_datasets', {}, /q/],
    ['list_tags', { limit: 201 }, /limit|200/i],
    ['get_dataset', { nameOrId: 'no-such-dataset' }, /not_found/],
    ['get_resource', { id: 'not-a-uuid' }, /id|uuid/i],
    ['get_resource_schema', { id: fx.linkId }, /not_queryable/],
    ['query_resource', { id: fx.linkId, sql: 'SELECT 1' }, /not_queryable/],
    ['query_resource', { id: fx.csvId, sql: 'DROP TABLE data' }, /query_not_select/],
    ['query_resource', { id: fx.csvId, sql: 'SELECT nope FROM data' }, /query_invalid/],
    ['query_resource', { id: fx.csvId, sql: "SELECT current_setting('allowed_paths')" }, /query_invalid/],
    // The entry points' one guard: text PostgreSQL cannot store never reaches it.
    ['get_dataset', { nameOrId: 'a\u0000b' }, /bad_request\): nameOrId: must not contain NUL characters/],
    ['search_datasets', { q: 'x', tags: ['\u0000'] }, /bad_request\): tags\.0: must not contain NUL/],
    ['list_organizations', { q: '\u0000' }, /bad_request/],
  ];
  for (const [name, args, message] of cases) {
    const result = await client.callTool({ name, arguments: args });
    t.true(result.isError, `${name} ${JSON.stringify(args)}: ${text(result)}`);
    t.regex(text(result), message, `${name} ${JSON.stringify(args)}`);
  }
  t.falsy((await client.callTool({ name: 'list_tags', arguments: {} })).isError, 'the server still answers');
  await client.close();
});

test.serial('a query past 15 s is a timeout error; a second concurrent query of the same caller is busy', async (t) => {
  const client = await connect(fx.memberToken);
  const slow = client.callTool(
    { name: 'query_resource', arguments: { id: fx.csvId, sql: 'SELECT count(*) FROM range(1000000000000)' } },
    undefined,
    { timeout: 60_000 },
  );
  await until('the slow query holds its caller lock', () => queryRunning(app));
  const busy = await client.callTool({ name: 'query_resource', arguments: { id: fx.csvId, sql: 'SELECT 1' } });
  t.true(busy.isError);
  t.regex(text(busy), /query_busy/);
  const timedOut = await slow;
  t.true(timedOut.isError);
  t.regex(text(timedOut), /query_timeout/);
  await client.close();
});

test.serial('private datasets: hidden from anonymous callers and other organizations, shown to members and sysadmins', async (t) => {
  const view = async (token?: string) => {
    const client = await connect(token);
    const found = structured<{ results: Array<{ name: string }> }>(
      await client.callTool({ name: 'search_datasets', arguments: { q: 'temperature logs', limit: 50 } }),
    );
    const detail = await client.callTool({ name: 'get_dataset', arguments: { nameOrId: fx.privateName } });
    // A tag only the private dataset carries exists only for those who may see it.
    const tags = structured<{ count: number }>(await client.callTool({ name: 'list_tags', arguments: { q: 'internal' } }));
    await client.close();
    return { searched: found.results.some((d) => d.name === fx.privateName), detail: !detail.isError, privateTag: tags.count === 1 };
  };
  t.deepEqual(await view(), { searched: false, detail: false, privateTag: false });
  t.deepEqual(await view(fx.outsiderToken), { searched: false, detail: false, privateTag: false });
  t.deepEqual(await view(fx.memberToken), { searched: true, detail: true, privateTag: true });
  t.deepEqual(await view(app.adminToken), { searched: true, detail: true, privateTag: true });
});

test.serial('a bad token is refused before MCP (401); GET and DELETE answer as a stateless server does', async (t) => {
  const post = await fetch(`${app.url}/api/mcp`, {
    method: 'POST',
    headers: { Authorization: 'Bearer alm_wrong', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.is(post.status, 401);
  for (const method of ['GET', 'DELETE']) {
    const reply = await fetch(`${app.url}/api/mcp`, { method, headers: { Accept: 'application/json, text/event-stream' } });
    t.is(reply.status, 405, method);
    await reply.body?.cancel();
  }
});

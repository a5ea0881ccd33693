import test from 'ava';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestApp } from '../helpers/app.ts';
import { CSV_QUERY, csvQueryMarkdown, MCP_TOOL_NAMES, startAppWithMcpCatalog, type McpFixture } from './fixtures.ts';

/**
 * /api/mcp through a client we did not write: the official Python SDK (PyPI `mcp`, pinned in test/helpers/tools.ts),
 * driven by python_client.py, which runs one session (initialize, tools/list, the planned calls) and
 * prints what it saw as JSON.
 */

interface ToolCall {
  tool: string;
  isError?: boolean;
  text?: string;
  structuredContent?: any;
  /** The SDK raised instead of returning a result: a protocol error, never what a tool refusal should be. */
  exception?: string;
}
interface PythonSession {
  serverInfo: { name: string };
  protocolVersion: string;
  instructions?: string;
  tools: Array<{ name: string; description?: string; inputSchema: any; annotations?: { readOnlyHint?: boolean } }>;
  calls: ToolCall[];
}

const SCRIPT = fileURLToPath(new URL('./python_client.py', import.meta.url));

let app: TestApp;
let fx: McpFixture;

test.before(async () => {
  ({ app, fx } = await startAppWithMcpCatalog());
});
test.after.always(async () => app?.stop());

function pythonSession(calls: Array<[string, Record<string, unknown>]>, token?: string): Promise<PythonSession> {
  const args = [SCRIPT, `${app.url}/api/mcp`, ...(token ? ['--token', token] : [])];
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.env.TEST_PYTHON ?? 'python3',
      args,
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err)
          reject(
            new Error(`python client failed (run the suite with npm test, which provides Python with mcp): ${err.message}\n${stderr}`),
          );
        else resolve(JSON.parse(stdout) as PythonSession);
      },
    );
    child.stdin!.end(JSON.stringify({ calls: calls.map(([tool, args]) => ({ tool, arguments: args })) }));
  });
}

test.serial('initialize negotiates with the almanac server; tools/list names the nine read-only tools', async (t) => {
  const session = await pythonSession([]);
  t.is(session.serverInfo.name, 'almanac');
  // The newest version the pinned Python SDK offers in the initialize handshake, which the server speaks.
  t.is(session.protocolVersion, '2025-11-25');
  t.regex(session.instructions ?? '', /search_datasets/);
  t.deepEqual(session.tools.map((tool) => tool.name).sort(), MCP_TOOL_NAMES);
  for (const tool of session.tools) {
    t.true(tool.annotations?.readOnlyHint, `${tool.name} is read-only`);
    t.truthy(tool.description, `${tool.name} is described`);
  }
  t.deepEqual(session.tools.find((tool) => tool.name === 'search_datasets')!.inputSchema.required, ['q']);
});

test.serial('every tool answers: search, dataset, resource, schema, query as a Markdown table, and paged lists', async (t) => {
  const example = 'SELECT city, "avg temp", note FROM data LIMIT 10';
  const { calls } = await pythonSession([
    ['search_datasets', { q: 'city temperatures' }],
    ['get_dataset', { nameOrId: fx.publicName }],
    ['get_resource', { id: fx.csvId }],
    ['get_resource', { id: fx.linkId }],
    ['get_resource_schema', { id: fx.csvId }],
    ['query_resource', { id: fx.csvId, sql: example }],
    ['query_resource', { id: fx.csvId, sql: CSV_QUERY }],
    ['list_organizations', { limit: 1, offset: 0 }],
    ['list_organizations', { limit: 1, offset: 1 }],
    ['list_groups', {}],
    ['list_tags', { q: 'temp' }],
    ['get_dataset_history', { nameOrId: fx.publicName }],
  ]);
  for (const call of calls) t.false(call.isError ?? true, `${call.tool}: ${call.text ?? call.exception}`);
  const history = calls[11]!.structuredContent;
  t.is(history.results.at(-1)?.action, 'created');
  t.true(history.results.every((a: { objectId: string }) => a.objectId === calls[1]!.structuredContent.id));
  const [search, dataset, csv, link, schema, exampleQuery, query, orgs1, orgs2, groups, tags] = calls.map((c) => c.structuredContent);
  t.is(search.results[0]?.name, fx.publicName);
  t.deepEqual(
    dataset.resources.map((r: { id: string }) => r.id),
    [fx.csvId, fx.linkId],
  );
  t.is(csv.downloadUrl, `${app.url}/api/v1/resources/${fx.csvId}/download`);
  t.is(link.downloadUrl, 'https://example.org/stations.json');
  t.is(schema.table, 'data');
  t.is(schema.exampleQuery, example);
  t.is(exampleQuery.rowCount, 3);
  // The pipe in a value is escaped and the line break inside a quoted CSV field becomes <br>.
  t.is(calls[6]!.text, csvQueryMarkdown(query.elapsedMs));
  t.like(query, { rowCount: 3, truncated: false });
  t.is(orgs1.count, 2);
  t.deepEqual(
    [...orgs1.results, ...orgs2.results].map((o: { name: string }) => o.name),
    ['climate-office', 'other-office'],
  );
  t.deepEqual(
    groups.results.map((g: { name: string }) => g.name),
    ['weather'],
  );
  t.deepEqual(
    tags.results.map((tag: { name: string }) => tag.name),
    ['temperature'],
  );
});

test.serial('bad input and refusals are tool errors the agent can read, and the session goes on', async (t) => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['search_datasets', { q: 'x', limit: 51 }, /limit|50/i],
    ['get_dataset', { nameOrId: 'no-such-dataset' }, /not_found/],
    ['query_resource', { id: fx.csvId, sql: 'DROP TABLE data' }, /query_not_select/],
    ['get_resource_schema', { id: fx.linkId }, /not_queryable/],
    ['query_resource', { id: fx.linkId, sql: 'SELECT 1' }, /not_queryable/],
  ];
  const { calls } = await pythonSession([
    ...cases.map(([tool, args]) => [tool, args] as [string, Record<string, unknown>]),
    ['list_tags', {}],
  ]);
  cases.forEach(([tool, args, reason], i) => {
    const call = calls[i]!;
    t.is(call.exception, undefined, `${tool} ${JSON.stringify(args)} is a tool error, not a protocol error`);
    t.true(call.isError, `${tool} ${JSON.stringify(args)}: ${call.text}`);
    t.regex(call.text ?? '', reason, `${tool} ${JSON.stringify(args)}`);
  });
  t.false(calls.at(-1)!.isError, 'the server still answers');
});

test.serial('private datasets: hidden from anonymous callers and other organizations, shown to members and sysadmins', async (t) => {
  const view = async (token?: string) => {
    const { calls } = await pythonSession(
      [
        ['search_datasets', { q: 'temperature logs', limit: 50 }],
        ['get_dataset', { nameOrId: fx.privateName }],
        // A tag only the private dataset carries exists only for those who may see it.
        ['list_tags', { q: 'internal' }],
        ['get_dataset_history', { nameOrId: fx.privateName }],
      ],
      token,
    );
    const [search, detail, tags, history] = calls;
    return {
      searched: search!.structuredContent.results.some((d: { name: string }) => d.name === fx.privateName),
      detail: detail!.isError === false && detail!.structuredContent.name === fx.privateName,
      privateTag: tags!.structuredContent.results.some((tag: { name: string }) => tag.name === 'internal-logs'),
      history: history!.isError === false && history!.structuredContent.results.length > 0,
    };
  };
  t.deepEqual(await view(), { searched: false, detail: false, privateTag: false, history: false });
  t.deepEqual(await view(fx.outsiderToken), { searched: false, detail: false, privateTag: false, history: false });
  t.deepEqual(await view(fx.memberToken), { searched: true, detail: true, privateTag: true, history: true });
  t.deepEqual(await view(app.adminToken), { searched: true, detail: true, privateTag: true, history: true });
});

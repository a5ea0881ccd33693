import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestApp } from '../helpers/app.ts';
import { CSV_QUERY, MCP_TOOL_NAMES, startAppWithMcpCatalog, type McpFixture } from './fixtures.ts';

/**
 * /api/mcp through the MCP Inspector's CLI mode (npm `@modelcontextprotocol/inspector`, an exact dev
 * dependency, run from node_modules on this Node), over Streamable HTTP, one process per request as a
 * developer would type it. It prints the JSON result, exits 5 on a tool error and sends --header as is.
 */

const INSPECTOR = fileURLToPath(new URL('../../node_modules/.bin/mcp-inspector', import.meta.url));

let app: TestApp;
let fx: McpFixture;
let home: string;

test.before(async () => {
  ({ app, fx } = await startAppWithMcpCatalog());
  // The CLI keeps a catalog and storage under ~/.mcp-inspector: give it a home of its own.
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-inspector-'));
});
test.after.always(async () => {
  await app?.stop();
  if (home) await fs.rm(home, { recursive: true, force: true });
});

interface InspectorRun {
  code: number;
  result: any;
  stderr: string;
}

function inspector(args: string[], token?: string): Promise<InspectorRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  // With a proxy variable set the CLI loads undici 8, which does not load on Node 20; the app is on loopback.
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete env[name];
  const argv = [
    INSPECTOR,
    '--cli',
    `${app.url}/api/mcp`,
    '--transport',
    'http',
    ...(token ? ['--header', `Authorization: Bearer ${token}`] : []),
    ...args,
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      let result: unknown;
      try {
        result = stdout.trim() ? JSON.parse(stdout) : null;
      } catch {
        result = stdout;
      }
      resolve({ code, result, stderr });
    });
  });
}

const call = (tool: string, toolArgs: string[], token?: string) =>
  inspector(['--method', 'tools/call', '--tool-name', tool, '--tool-arg', ...toolArgs], token);

test.serial('tools/list names the nine read-only tools', async (t) => {
  const { code, result, stderr } = await inspector(['--method', 'tools/list']);
  t.is(code, 0, stderr);
  t.deepEqual(result.tools.map((tool: { name: string }) => tool.name).sort(), MCP_TOOL_NAMES);
  for (const tool of result.tools) t.true(tool.annotations?.readOnlyHint, `${tool.name} is read-only`);
});

test.serial('tools/call: search finds the dataset, the schema names its table, the query answers a Markdown table', async (t) => {
  const search = await call('search_datasets', ['q=city temperatures']);
  t.is(search.code, 0, search.stderr);
  t.is(search.result.structuredContent.results[0]?.name, fx.publicName);

  const schema = await call('get_resource_schema', [`id=${fx.csvId}`]);
  t.is(schema.code, 0, schema.stderr);
  t.like(schema.result.structuredContent, { table: 'data', exampleQuery: 'SELECT city, "avg temp", note FROM data LIMIT 10' });

  const query = await call('query_resource', [`id=${fx.csvId}`, `sql=${CSV_QUERY}`]);
  t.is(query.code, 0, query.stderr);
  t.regex(
    query.result.content[0].text,
    /^\| city \| note \|\n\| --- \| --- \|\n\| Cairo \| hot \|\n\| Lisbon \| sunny<br>mostly \|\n\| Oslo \| cold\\\|dark \|\n\n3 rows, /,
  );
});

test.serial('a tool error exits 5 and prints the result with isError and the reason', async (t) => {
  const cases: Array<[string, string[], RegExp]> = [
    ['get_dataset', ['nameOrId=no-such-dataset'], /not_found/],
    ['query_resource', [`id=${fx.csvId}`, 'sql=DROP TABLE data'], /query_not_select/],
    // The CLI sends a value that parses as JSON as JSON: 51 is a number here, as the schema wants.
    ['search_datasets', ['q=x', 'limit=51'], /limit|50/i],
  ];
  for (const [tool, args, reason] of cases) {
    const { code, result } = await call(tool, args);
    t.is(code, 5, `${tool} ${args.join(' ')}`);
    t.true(result.isError, `${tool} ${args.join(' ')}`);
    t.regex(result.content[0].text, reason);
  }
});

test.serial('a wrong Bearer token is refused before any tool is listed', async (t) => {
  const { code, result } = await inspector(['--method', 'tools/list'], 'alm_wrong');
  t.not(code, 0);
  t.falsy(result?.tools);
});

test.serial(
  "--header carries the caller: the member sees the private dataset, anonymous and the other organization's member do not",
  async (t) => {
    const view = async (token?: string) => {
      const search = await call('search_datasets', ['q=temperature logs', 'limit=50'], token);
      const detail = await call('get_dataset', [`nameOrId=${fx.privateName}`], token);
      t.is(search.code, 0, search.stderr);
      return {
        searched: search.result.structuredContent.results.some((d: { name: string }) => d.name === fx.privateName),
        detail: detail.code === 0 && detail.result.structuredContent.name === fx.privateName,
      };
    };
    t.deepEqual(await view(), { searched: false, detail: false });
    t.deepEqual(await view(fx.outsiderToken), { searched: false, detail: false });
    t.deepEqual(await view(fx.memberToken), { searched: true, detail: true });
  },
);

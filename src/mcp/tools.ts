import { datasetActivity, datasetAtVersion } from '../domain/activity/history.ts';
import { McpServer, type ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Actor } from '../domain/actor.ts';
import type { DomainContext } from '../domain/context.ts';
import { notQueryable, type DomainError } from '../domain/errors.ts';
import { auditedRunner, unitKey } from '../policies/audited-runner.ts';
import { getDataset } from '../domain/datasets/lifecycle.ts';
import { coverageDate } from '../domain/datasets/coverage-query.ts';
import { listDatasets } from '../domain/datasets/list.ts';
import { RECORD_FILTER_KEYS, type RecordFilterKey } from '../domain/datasets/metadata-filters.ts';
import { listGroups } from '../domain/groups/groups.ts';
import { resourceSchema } from '../domain/resources/files.ts';
import { queryResource } from '../domain/resources/query.ts';
import { getResource } from '../domain/resources/resources.ts';
import { listTags } from '../domain/tags/tags.ts';
import { ALMANAC_VERSION } from '../version.ts';
import { markdownTable, sqlColumn } from './markdown.ts';

/**
 * The MCP server of one request (the endpoint is stateless): eight read-only tools over the same domain
 * functions, visibility rule and presenters as REST, for the caller the request authenticated.
 */
export interface McpCaller {
  domain: DomainContext;
  actor: Actor;
  /** Who holds the one-query-at-a-time lock: the user id, else the client IP. */
  queryCaller: string;
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  structuredContent: value as Record<string, unknown>,
});

/** Every tool the server offers: the audit report expects each to have run (test/run.ts). */
export const MCP_TOOL_NAMES = [
  'search_datasets',
  'get_dataset',
  'get_dataset_history',
  'get_resource',
  'get_resource_schema',
  'query_resource',
  'list_organizations',
  'list_groups',
  'list_tags',
] as const;
export type McpToolName = (typeof MCP_TOOL_NAMES)[number];

/** A domain refusal (not found, not queryable, busy, timeout…) is a tool error the agent can read. */
const toolError = (err: DomainError): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `${err.title} (${err.code}): ${err.message}` }],
});

const offset = z.number().int().min(0).default(0).describe('Results to skip, for paging');

/** The record filters of search_datasets, each a list of values (any of them matches). */
const RECORD_FILTER_ABOUT: Record<RecordFilterKey, string> = {
  theme: 'Only datasets with any of these themes (an IRI or a label)',
  access_level: 'Only datasets with any of these access levels: public, restricted public, non-public',
  frequency: 'Only datasets updated at any of these frequencies, as stored (R/P1Y, ANNUAL, an EU frequency IRI)',
  language: 'Only datasets in any of these languages (a tag such as en, or an IRI)',
  publisher: 'Only datasets of any of these publishers (by name)',
};
const recordFilterArgs = Object.fromEntries(
  RECORD_FILTER_KEYS.map((key) => [key, z.array(z.string().min(1).max(200)).max(50).optional().describe(RECORD_FILTER_ABOUT[key])]),
) as Record<RecordFilterKey, z.ZodOptional<z.ZodArray<z.ZodString>>>;
const limit = (byDefault: number, max: number) =>
  z.number().int().min(1).max(max).default(byDefault).describe(`Results per page (at most ${max})`);

export function createMcpServer(caller: McpCaller): McpServer {
  const { domain, actor } = caller;
  // The SDK turns a thrown error into a tool error without a log line: the runner writes the self-check's.
  const run = auditedRunner(domain.config.http, domain.log);
  const server = new McpServer(
    { name: 'almanac', title: domain.config.site.name, version: ALMANAC_VERSION },
    {
      instructions:
        'A data catalog. Find datasets with search_datasets, read one with get_dataset (its resources are files or links), ' +
        'then for a CSV/TSV resource read its columns with get_resource_schema and ask questions of it with query_resource ' +
        '(one SQL SELECT over the table named data). list_organizations, list_groups and list_tags help narrow a search.',
    },
  );

  /** Registers a tool whose every call runs through the audited runner, as `mcp:<name>`. */
  const register = <Args extends z.ZodRawShape>(
    name: McpToolName,
    config: { title: string; description: string; inputSchema: Args; annotations: ToolAnnotations },
    work: (args: z.output<z.ZodObject<Args>>) => Promise<CallToolResult>,
  ) =>
    server.registerTool(name, config, ((args: z.output<z.ZodObject<Args>>) =>
      run({ key: unitKey('mcp', name) }, () => work(args), { refuse: toolError, inputs: [args] })) as unknown as ToolCallback<Args>);

  register(
    'search_datasets',
    {
      title: 'Search datasets',
      description:
        'Hybrid search (keywords and meaning) over the datasets you may see. Start here: describe what you need in plain words. ' +
        'Each result has a name to pass to get_dataset, and `match` says why it matched. Filter by organization (its name, ' +
        'from list_organizations), tags, theme, access_level, frequency, language or publisher, by where (bbox) and when ' +
        '(temporal_start, temporal_end) the data is about; page with offset and limit.',
      inputSchema: {
        q: z.string().trim().min(1).max(500).describe('What to look for: keywords or a natural-language description'),
        organization: z.string().min(1).max(200).optional().describe('Only datasets of this organization (its name/slug)'),
        tags: z.array(z.string().min(1).max(200)).max(50).optional().describe('Only datasets with any of these tags'),
        ...recordFilterArgs,
        bbox: z
          .array(z.number())
          .length(4)
          .optional()
          .describe('Only datasets whose spatial coverage intersects this box: [west, south, east, north] in WGS 84 degrees'),
        temporal_start: coverageDate.optional().describe('Only datasets whose temporal coverage reaches this date or later'),
        temporal_end: coverageDate.optional().describe('Only datasets whose temporal coverage begins by the end of this date'),
        semantic: z.boolean().default(true).describe('false: keyword matches only'),
        offset,
        limit: limit(10, 50),
      },
      annotations: { title: 'Search datasets', ...READ_ONLY },
    },
    async (args) => {
      const found = await listDatasets(domain, actor, {
        q: args.q,
        semantic: args.semantic,
        offset: args.offset,
        limit: args.limit,
        ...(args.organization ? { organization: [args.organization] } : {}),
        ...(args.tags?.length ? { tags: args.tags } : {}),
        ...Object.fromEntries(RECORD_FILTER_KEYS.filter((key) => args[key]?.length).map((key) => [key, args[key]])),
        ...(args.bbox ? { bbox: args.bbox } : {}),
        ...(args.temporal_start ? { temporal_start: args.temporal_start } : {}),
        ...(args.temporal_end ? { temporal_end: args.temporal_end } : {}),
        private: true,
      });
      return json(found);
    },
  );

  register(
    'get_dataset',
    {
      title: 'Get a dataset',
      description:
        'A dataset with its metadata and its resources (files and links). Pass a resource id to get_resource or get_resource_schema.',
      inputSchema: {
        nameOrId: z.string().min(1).max(200).describe('The dataset name (slug) or UUID'),
        version: z.string().min(1).max(200).optional().describe('A change id from get_dataset_history: the dataset as that change left it'),
      },
      annotations: { title: 'Get a dataset', ...READ_ONLY },
    },
    async (args) =>
      json(
        args.version
          ? await datasetAtVersion(domain, actor, args.nameOrId, args.version)
          : await getDataset(domain, actor, args.nameOrId, { draft: false }),
      ),
  );

  register(
    'get_dataset_history',
    {
      title: "Get a dataset's history",
      description:
        'What changed in a dataset, newest first: each change with when, who (a user id, or the harvest run that brought it) and its field-by-field diff. Pass a change id as `version` to get_dataset to read the dataset as it was.',
      inputSchema: {
        nameOrId: z.string().min(1).max(200).describe('The dataset name (slug) or UUID'),
        limit: limit(20, 100),
        offset,
      },
      annotations: { title: "Get a dataset's history", ...READ_ONLY },
    },
    async (args) => json(await datasetActivity(domain, actor, args.nameOrId, { limit: args.limit, offset: args.offset })),
  );

  register(
    'get_resource',
    {
      title: 'Get a resource',
      description: "A resource's metadata, with its download URL (an uploaded file's URL on this catalog, or a link's own URL).",
      inputSchema: { id: z.uuid().describe('The resource UUID') },
      annotations: { title: 'Get a resource', ...READ_ONLY },
    },
    async (args) => {
      // An upload's url is its /download on this catalog once its bytes are complete; a link's, the link.
      const resource = await getResource(domain, actor, args.id);
      return json({ ...resource, downloadUrl: resource.url });
    },
  );

  register(
    'get_resource_schema',
    {
      title: 'Get a resource schema',
      description:
        'The columns (name, type, nulls, statistics) of a CSV/TSV resource that has a preview, as the table `data` that ' +
        'query_resource queries, with an example query using the real column names. Other resources are not queryable.',
      inputSchema: { id: z.uuid().describe('The resource UUID') },
      annotations: { title: 'Get a resource schema', ...READ_ONLY },
    },
    async (args) => {
      const found = await resourceSchema(domain, actor, args.id);
      if (!found.queryable) throw notQueryable();
      const columns = ((found.schema as { columns?: Array<{ name: string }> }).columns ?? []).map((c) => c.name);
      const picked = columns.slice(0, 3).map(sqlColumn).join(', ') || '*';
      return json({ ...found, table: 'data', exampleQuery: `SELECT ${picked} FROM data LIMIT 10` });
    },
  );

  register(
    'query_resource',
    {
      title: 'Query a resource',
      description:
        "Runs one read-only SQL SELECT (or WITH … SELECT, DuckDB dialect) over a resource's preview, the table `data`; quote " +
        'column names with spaces or capitals in double quotes. Read the columns with get_resource_schema first. At most ' +
        '10,000 rows, 5 MB and 15 seconds; one query at a time. The result is a Markdown table.',
      inputSchema: {
        id: z.uuid().describe('The resource UUID'),
        sql: z.string().min(1).max(100_000).describe('One SELECT over the table data, e.g. SELECT count(*) FROM data'),
      },
      annotations: { title: 'Query a resource', ...READ_ONLY },
    },
    async (args) => {
      const result = await queryResource(domain, actor, args.id, args.sql, caller.queryCaller);
      const summary = `${result.rowCount} row${result.rowCount === 1 ? '' : 's'}${result.truncated ? ' (truncated: more rows exist)' : ''}, ${result.elapsedMs} ms`;
      return {
        content: [{ type: 'text', text: `${markdownTable(result.columns, result.rows)}\n\n${summary}` }],
        structuredContent: result as unknown as Record<string, unknown>,
      };
    },
  );

  for (const [name, kind, title] of [
    ['list_organizations', 'organization', 'organizations'],
    ['list_groups', 'category', 'categories (groups)'],
  ] as const) {
    register(
      name,
      {
        title: `List ${title}`,
        description: `The ${title}, by name; q matches the name or title. A name narrows search_datasets${kind === 'organization' ? ' (organization)' : ''}.`,
        inputSchema: {
          q: z.string().trim().min(1).max(200).optional().describe('Part of the name or title'),
          offset,
          limit: limit(20, 100),
        },
        annotations: { title: `List ${title}`, ...READ_ONLY },
      },
      async (args) => json(await listGroups(domain, actor, kind, { q: args.q }, { offset: args.offset, limit: args.limit })),
    );
  }

  register(
    'list_tags',
    {
      title: 'List tags',
      description: 'Tags in use on the datasets you may see, with counts; q matches the tag name. Tags narrow search_datasets.',
      inputSchema: { q: z.string().trim().min(1).max(200).optional().describe('Part of the tag name'), offset, limit: limit(50, 200) },
      annotations: { title: 'List tags', ...READ_ONLY },
    },
    async (args) => json(await listTags(domain, actor, args.q, { offset: args.offset, limit: args.limit })),
  );

  return server;
}

/**
 * What the cluster tests do through the balancer, as clients would: a sysadmin's organization and
 * people, datasets made, files uploaded, harvests run, MCP calls made with the official SDK.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { until } from '../helpers/app.ts';
import type { Auth, Reply } from '../helpers/client.ts';
import type { Cluster } from './cluster.ts';

export const admin = (cluster: Cluster): Auth => ({ token: cluster.adminToken });

/** A published dataset in `org` (private when asked), with one upload resource; answers the REST record. */
export async function publishDataset(cluster: Cluster, org: string, name: string, title: string, extra: Record<string, unknown> = {}) {
  const made = await cluster.api.post(
    '/api/v1/packages',
    {
      name,
      title,
      notes: `${title}, measured each season.`,
      ownerOrg: org,
      licenseId: 'cc-by-4.0',
      resources: [{ urlType: 'upload', name: `${name}.csv`, format: 'CSV' }],
      ...extra,
    },
    admin(cluster),
  );
  if (made.status !== 201) throw new Error(`${name}: ${made.status} ${made.text}`);
  return made.body;
}

/** One MCP tool call through the official TypeScript SDK over Streamable HTTP; answers the tool's text. */
export async function mcpCall(cluster: Cluster, name: string, args: Record<string, unknown>, token?: string) {
  const client = new Client({ name: 'almanac-cluster-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${cluster.url}/api/mcp`), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
  await client.connect(transport);
  try {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    return { isError: result.isError === true, text };
  } finally {
    await client.close();
  }
}

/** Starts a harvest run and waits for it to end; answers the run. */
export async function harvestToEnd(cluster: Cluster, sourceId: string, timeoutMs = 180_000) {
  const started = await cluster.api.post(`/api/v1/admin/harvest-sources/${sourceId}/run`, undefined, admin(cluster));
  if (started.status !== 202) throw new Error(`harvest run: ${started.status} ${started.text}`);
  let reply!: Reply;
  await until(
    'the harvest run ends',
    async () => {
      reply = await cluster.api.get(`/api/v1/admin/harvest-sources/${sourceId}`, admin(cluster));
      return reply.body.lastRun?.runId === started.body.runId && reply.body.lastRun.status !== 'running';
    },
    timeoutMs,
  );
  return reply.body.lastRun;
}

/** Waits until every vector index holds a vector for each of its documents (the backlog caught up). */
export async function vectorsCaughtUp(cluster: Cluster, timeoutMs = 120_000) {
  await until(
    'the vector backlog embedded every document',
    async () => {
      const stats = await cluster.api.get('/api/v1/admin/search/stats', admin(cluster));
      return (
        stats.status === 200 &&
        Object.values(stats.body.indexes as Record<string, { drift: number | null }>).every((index) => index.drift === 0)
      );
    },
    timeoutMs,
  );
}

/** GET through one API process directly, not the balancer: what that replica answers. */
export async function getFrom(url: string, pathname: string, auth: Auth = {}) {
  const reply = await fetch(`${url}${pathname}`, { headers: auth.token ? { Authorization: `Bearer ${auth.token}` } : {} });
  const text = await reply.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the text says why.
  }
  return { status: reply.status, body: body as Record<string, any>, text };
}

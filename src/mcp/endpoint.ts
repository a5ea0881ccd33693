import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Middleware } from 'koa';
import type { Actor } from '../domain/actor.ts';
import type { DomainContext } from '../domain/context.ts';
import { queryCaller } from '../domain/resources/query.ts';
import { createMcpServer } from './tools.ts';

export const MCP_PATH = '/api/mcp';

/**
 * `/api/mcp`: Streamable HTTP in stateless mode. Each POST gets its own server and transport for the
 * caller the request authenticated (Bearer token or session cookie, as REST), answered as JSON. GET and
 * DELETE get 405, as the transport's stateless servers answer them: no session, no standalone stream.
 */
export function mcpEndpoint(): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    if (ctx.method !== 'POST') {
      // Stateless: no session to resume or end, no server-initiated stream to open.
      ctx.status = 405;
      ctx.set('Allow', 'POST');
      ctx.body = {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.' },
        id: null,
      };
      return;
    }
    const domain = ctx.state.domain as DomainContext;
    const actor = ctx.state.actor as Actor;
    const server = createMcpServer({ domain, actor, queryCaller: queryCaller(actor, ctx.ip) });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(ctx.req, ctx.res, ctx.request.body);
  };
}

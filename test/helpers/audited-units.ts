import fs from 'node:fs/promises';
import { ckanActions } from '../../src/api/ckan/actions/index.ts';
import { v1Routes } from '../../src/api/v1/index.ts';
import { FEED_ROUTES } from '../../src/feeds/catalog-routes.ts';
import { routeKey } from '../../src/http/route.ts';
import { MCP_TOOL_NAMES } from '../../src/mcp/tools.ts';
import { unitKey } from '../../src/policies/audited-runner.ts';
import { WEB_PAGES } from '../../src/web/page-table.ts';

/**
 * Every unit of every entry point, as the audited runner names them in the self-check report: REST
 * routes (`GET /packages/{nameOrId}`), MCP tools, CKAN actions, web pages and feed routes.
 */
export function everyAuditedUnit(): string[] {
  return [
    ...v1Routes.map(routeKey),
    ...MCP_TOOL_NAMES.map((name) => unitKey('mcp', name)),
    ...Object.keys(ckanActions).map((name) => unitKey('ckan', name)),
    ...Object.keys(WEB_PAGES).map((page) => unitKey('web', page)),
    ...Object.keys(FEED_ROUTES).map((route) => unitKey('feed', route)),
  ];
}

/** The units that no request of a run made succeed under the audit, by the report it wrote (one unit a line). */
export async function unitsNeverAudited(report: string, units = everyAuditedUnit()): Promise<string[]> {
  const seen = new Set((await fs.readFile(report, 'utf8').catch(() => '')).split('\n'));
  return units.filter((unit) => !seen.has(unit));
}

/** What the test runner prints for them. */
export const neverAuditedMessage = (units: string[]) =>
  'self-check: no test made these units succeed, so their authorization (and, for REST routes, their response schema) ' +
  `was never checked:\n  ${units.join('\n  ')}`;

import { createRequire } from 'node:module';
import type { Config } from '../config.ts';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
export const ALMANAC_VERSION = version;

/** Features report what this build serves; semantic search and MCP arrive in later releases. */
export const siteSettings = (config: Config) => ({
  siteName: config.site.name,
  registrationEnabled: config.site.registrationEnabled,
  version: ALMANAC_VERSION,
  features: { semanticSearch: false, mcp: false },
});

import type { Config } from '../config.ts';
import { ALMANAC_VERSION } from '../version.ts';

/** Features report what this deployment serves: semantic search unless embeddings are off, and MCP at /api/mcp. */
export const siteSettings = (config: Config) => ({
  siteName: config.site.name,
  registrationEnabled: config.site.registrationEnabled,
  version: ALMANAC_VERSION,
  features: { semanticSearch: config.embeddings.provider !== 'none', mcp: true },
});

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Almanac's version from its package.json, found by walking up: from src/ when run from source, dist/src/ when built. */
function readVersion(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'almanac' && pkg.version) return pkg.version;
  }
  throw new Error('package.json of almanac not found above ' + fileURLToPath(import.meta.url));
}

export const ALMANAC_VERSION = readVersion();

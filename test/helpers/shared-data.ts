import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The shared test data (SOURCES.md there says where each file comes from): ALMANAC_SHARED_DATA, else
 * `shared/data` beside this checkout, else where the workplace keeps it for a clone made elsewhere (CI
 * runs a clean clone in a folder of its own).
 */
export const SHARED_DATA =
  process.env.ALMANAC_SHARED_DATA ??
  [join(import.meta.dirname, '../../../shared/data'), '/work/shared/data'].find((dir) => existsSync(dir))!;

// Shared with the readers of src/harvest: this module must import nothing from there (no import cycle).
import type { EntityManager } from '@mikro-orm/postgresql';
import { RESERVED_DATASET_NAMES } from '../datasets/reserved-names.ts';
import { isUuid } from '../ids.ts';

const SLUG = /^[a-z0-9][a-z0-9_-]{1,99}$/;
/** A valid Almanac name as it is (2–100 lowercase letters, digits, `-` or `_`, starting with a letter or digit). */
export const isSlug = (text: string): boolean => SLUG.test(text);
/** Room left for a `-<n>` suffix within the 100 characters of a name. */
const BASE_MAX = 90;

/** A dataset, organization or category name (DESIGN §4's slug) from free text: "Café Données 2024" → "cafe-donnees-2024". */
export function slugFrom(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, BASE_MAX)
    .replace(/[-_]+$/, '');
  return slug.length >= 2 ? slug : '';
}

/** The record's own name when it is a valid slug, else one made from its title, else from its remote id. */
export function baseName(name: string | null, title: string, remoteId: string): string {
  if (name && SLUG.test(name) && !isUuid(name)) return name.length <= BASE_MAX ? name : slugFrom(name);
  return slugFrom(title) || slugFrom(remoteId) || 'dataset';
}

/**
 * `base` when no dataset (of any state) holds it, else the first free `base-2`, `base-3`…: a name taken
 * by a dataset from elsewhere is never overwritten. Two runs racing for one name meet in the unique
 * constraint, and the loser tries again.
 */
export async function freeDatasetName(em: EntityManager, base: string): Promise<string> {
  const rows: Array<{ name: string }> = await em.execute(
    `select name from datasets where name = ? or (name like ? escape '\\' and name ~ ?)`,
    [base, `${base.replace(/[\\%_]/g, (c) => `\\${c}`)}-%`, `^${base.replace(/[^a-z0-9]/g, (c) => `\\${c}`)}-[0-9]+$`],
  );
  const taken = new Set([...RESERVED_DATASET_NAMES, ...rows.map((r) => r.name)]);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

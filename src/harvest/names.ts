/**
 * Names for harvested records: Almanac's slugs are 2–100 lowercase letters, digits, `-` or `_`, starting
 * with a letter or digit (the same rule as src/http/schemas.ts' name). A source's own name is kept when it
 * already fits; otherwise one is suggested from it (or the title), and a taken one gets a numbered suffix.
 */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{1,99}$/;
const MAX_NAME = 100;

/** The source's name when it is a valid Almanac name, else null. */
export const validName = (name: string | null | undefined): string | null => (name && NAME_PATTERN.test(name) ? name : null);

/**
 * A slug from any text: accents folded (`é` → `e`), lower case, runs of anything else turned into one
 * `-`, trimmed of leading and trailing `-`/`_`, at most 100 characters; null when nothing usable is left.
 */
export function suggestName(text: string | null | undefined): string | null {
  if (!text) return null;
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, MAX_NAME)
    .replace(/[-_]+$/, '');
  return NAME_PATTERN.test(slug) ? slug : null;
}

/** `base` with the suffix `-n` (n ≥ 2), cut so that the whole stays within 100 characters. */
export function numberedName(base: string, n: number): string {
  const suffix = `-${n}`;
  return `${base.slice(0, MAX_NAME - suffix.length).replace(/[-_]+$/, '')}${suffix}`;
}

import { z } from 'zod';

/**
 * Free key/value pairs (CKAN's `extras`): what has no typed place in the record, kept byte for byte and
 * in order. Keys are unique, as CKAN checks; values are text (a structured value is its JSON text).
 */
export const EXTRAS_LIMITS = { count: 500, key: 200, value: 100_000 } as const;

export const extra = z.strictObject({
  key: z.string().min(1, 'must not be empty').max(EXTRAS_LIMITS.key),
  value: z.string().max(EXTRAS_LIMITS.value),
});
export type Extra = z.infer<typeof extra>;

export const extras = z
  .array(extra)
  .max(EXTRAS_LIMITS.count, `must have at most ${EXTRAS_LIMITS.count} pairs`)
  .superRefine((pairs, ctx) => {
    const seen = new Set<string>();
    pairs.forEach((p, i) => {
      if (seen.has(p.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `"${p.key}" is given twice` });
      seen.add(p.key);
    });
  });

/** Adds pairs under keys not yet used: a harvested value with no typed place, kept as its source gave it. */
export function withExtras(current: Extra[], more: Extra[]): Extra[] {
  const keys = new Set(current.map((e) => e.key));
  return [...current, ...more.filter((e) => !keys.has(e.key) && keys.add(e.key))];
}

/** How much a dataset's or resource's profile values may hold: a profile's fields are form fields, not documents. */
export const CUSTOM_FIELDS_LIMITS = { keys: 200, depth: 5, characters: 200_000 } as const;

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

/** The values of the profiles' fields (`customFields`): checked against the profile by the domain, capped here. */
export const customFields = z.record(z.string().min(1).max(EXTRAS_LIMITS.key), z.unknown()).superRefine((values, ctx) => {
  const L = CUSTOM_FIELDS_LIMITS;
  if (Object.keys(values).length > L.keys) ctx.addIssue({ code: 'custom', message: `must have at most ${L.keys} fields` });
  // The object itself is one level; a field's value may nest below it.
  else if (depthOf(values) > L.depth) ctx.addIssue({ code: 'custom', message: `must not nest more than ${L.depth} levels deep` });
  else if (JSON.stringify(values).length > L.characters)
    ctx.addIssue({ code: 'custom', message: `too big: more than ${L.characters.toLocaleString('en-US')} characters as JSON` });
});

/** A value kept as an extra: text as it is, anything else as its JSON (so a source's structure comes back). */
export const extraText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

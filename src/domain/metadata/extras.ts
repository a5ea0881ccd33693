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

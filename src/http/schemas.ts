import { z } from 'zod';
import { isUuid } from '../domain/ids.ts';

/** Building blocks shared by route schemas. */
export const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{1,99}$/, 'must be 2–100 lowercase letters, digits, - or _, starting with a letter or digit')
  // {nameOrId} reads a UUID as an id, so a UUID-shaped name could never be found by name.
  .refine((name) => !isUuid(name), 'must not have the form of a UUID');

export { displayName, email, password, username } from '../domain/users/fields.ts';

export const nameOrIdParams = z.object({ nameOrId: z.string().min(1).max(200) });

/**
 * A whole number in the query string, from `min`, at most `max`: digits only, as the document's
 * `integer` says. (Coercing with Number() would read `offset=` and `offset=%20` as 0, and `0x10` as 16.)
 */
const intParam = (def: number, min: number, max?: number) => {
  let n = z
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(min, min === 0 ? 'must be 0 or more' : `must be at least ${min}`);
  if (max !== undefined) n = n.max(max, `must be at most ${max}`);
  // The document shows the number the string must spell (a preprocess is drawn as its target schema).
  return z.preprocess((v) => (typeof v === 'string' && /^[+-]?\d+$/.test(v) ? Number(v) : v), n.default(def));
};

/** Paging of DESIGN §4: limit 20 by default, 1 to 100 (outside is a 400), offset 0. */
export const paging = {
  offset: intParam(0, 0),
  limit: intParam(20, 1, 100),
};

/**
 * What JavaScript's trim() removes (\s in a JS pattern, spelled out: other regex dialects, Python's that
 * Schemathesis uses among them, read \s differently).
 */
const SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/**
 * A filter value in the query string (`tags=a`, `res_format=csv`), trimmed: one that is only spaces would
 * trim to nothing, so the document says what the check does, a character other than a space (or NUL).
 * The length counts as sent.
 */
export const filterValue = (max: number) =>
  z
    .string()
    .max(max)
    .regex(new RegExp(`^[^\\x00]*[^${SPACE}\\x00][^\\x00]*$`), 'must have a character other than a space, and no NUL')
    .trim();

/** A boolean query flag: `?x`, `?x=true`, `?x=1` are true; `false`/`0` false. */
export const flag = z.union([z.literal(''), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === '' || v === 'true' || v === '1');

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ count: z.number().int(), offset: z.number().int(), limit: z.number().int(), results: z.array(item) });

export const UserRecord = z
  .object({
    id: z.uuid(),
    username: z.string(),
    email: z.string().optional().describe('Only for the user themself and sysadmins'),
    displayName: z.string().nullable(),
    sysadmin: z.boolean(),
    state: z.enum(['active', 'deleted']),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'User' });

export const UserSummary = z.object({ id: z.uuid(), username: z.string(), displayName: z.string().nullable() }).meta({ id: 'UserSummary' });

export const GroupRecord = z
  .object({
    id: z.uuid(),
    name: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    imageUrl: z.string().nullable(),
    state: z.enum(['active', 'deleted']),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    packageCount: z.number().int().describe('Active datasets of this group that the caller may see'),
  })
  .meta({ id: 'Group', description: 'An organization or a category' });

export const MemberRecord = z
  .object({ userId: z.uuid(), username: z.string(), displayName: z.string().nullable(), role: z.enum(['member', 'editor', 'admin']) })
  .meta({ id: 'Member' });

export const Accepted = z
  .object({ workflowId: z.string(), runId: z.string(), uiUrl: z.string() })
  .meta({ id: 'AcceptedJob', description: 'A background job was started (or joined) in Temporal' });

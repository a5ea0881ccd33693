import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { FieldError } from '../errors.ts';
import { email } from '../users/fields.ts';
import { iri, isoInstant, MAX_LIST, webUrl } from './values.ts';

/**
 * The extra fields a metadata profile defines (issue 28 §1), as ckanext-scheming's dataset and resource
 * fields: a name (the key in `customFields`), a type, whether it is required, a closed list of choices with
 * labels or a vocabulary (IRIs), a label, help text and a small declarative form. One checker serves
 * REST, the web form and harvesting, so a value is judged the same everywhere.
 */
export const PROFILE_FIELD_TYPES = ['text', 'number', 'integer', 'boolean', 'date', 'url', 'email', 'list', 'choice'] as const;
export type ProfileFieldType = (typeof PROFILE_FIELD_TYPES)[number];

export const FORM_WIDGETS = ['input', 'textarea', 'select', 'radio', 'checkbox'] as const;

/** A text value's cap when the profile gives none: the cap of a description in the record. */
export const DEFAULT_MAX_LENGTH = 20_000;
export const MAX_PROFILE_FIELDS = 200;

const fieldName = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/, 'must start with a letter and hold only letters, digits and _ (at most 64)');

const compiles = (pattern: string) => {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
};

export const profileField = z
  .strictObject({
    name: fieldName.describe('The key of the value in `customFields`'),
    type: z.enum(PROFILE_FIELD_TYPES),
    label: z.string().trim().min(1, 'must not be empty').max(200),
    help: z.string().trim().max(2000).optional().describe('Shown under the field in the form'),
    required: z.boolean().default(false).describe('Needed to publish; a draft may leave it empty'),
    choices: z
      .array(z.strictObject({ value: z.string().min(1).max(500), label: z.string().trim().min(1).max(500).optional() }))
      .min(1)
      .max(1000)
      .optional()
      .describe('A closed list (type choice, or list): the value must be one of these'),
    vocabulary: z.array(iri).min(1).max(5000).optional().describe('A closed list of IRIs (type choice, or list)'),
    min: z.number().finite().optional().describe('number, integer: the least value'),
    max: z.number().finite().optional().describe('number, integer: the greatest value'),
    maxLength: z.number().int().min(1).max(DEFAULT_MAX_LENGTH).optional().describe('text, list items: the longest value'),
    pattern: z.string().max(500).refine(compiles, 'must be a valid regular expression').optional().describe('text, list items'),
    form: z
      .strictObject({
        widget: z.enum(FORM_WIDGETS).optional(),
        placeholder: z.string().max(200).optional(),
      })
      .optional()
      .describe('How the web form shows it (as ckanext-scheming’s form_snippet and form_placeholder)'),
  })
  .superRefine((f, ctx) => {
    const closed = f.choices !== undefined || f.vocabulary !== undefined;
    const misplaced = (key: keyof typeof f, types: ProfileFieldType[]) => {
      if (f[key] !== undefined && !types.includes(f.type))
        ctx.addIssue({ code: 'custom', path: [key], message: `does not apply to type ${f.type}` });
    };
    if (f.type === 'choice' && !closed)
      ctx.addIssue({ code: 'custom', path: ['choices'], message: 'a choice needs choices or a vocabulary' });
    if (f.choices && f.vocabulary)
      ctx.addIssue({ code: 'custom', path: ['vocabulary'], message: 'give choices or a vocabulary, not both' });
    misplaced('choices', ['choice', 'list']);
    misplaced('vocabulary', ['choice', 'list']);
    misplaced('min', ['number', 'integer']);
    misplaced('max', ['number', 'integer']);
    misplaced('maxLength', ['text', 'list']);
    misplaced('pattern', ['text', 'list']);
    if (f.min !== undefined && f.max !== undefined && f.min > f.max)
      ctx.addIssue({ code: 'custom', path: ['max'], message: 'must not be below min' });
    const values = f.choices?.map((c) => c.value) ?? [];
    if (new Set(values).size !== values.length) ctx.addIssue({ code: 'custom', path: ['choices'], message: 'holds a value twice' });
  });
export type ProfileField = z.output<typeof profileField>;

/** A list of fields whose names are unique. */
export const profileFieldList = z
  .array(profileField)
  .max(MAX_PROFILE_FIELDS)
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (seen.has(f.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${f.name}" is defined twice` });
      seen.add(f.name);
    });
  });

/** The values a closed field accepts: its choices, else its vocabulary; null when it is open. */
export const allowedValues = (f: ProfileField): string[] | null => f.choices?.map((c) => c.value) ?? f.vocabulary ?? null;

function textError(f: ProfileField, value: unknown): string | null {
  if (typeof value !== 'string') return 'must be text';
  const allowed = allowedValues(f);
  if (allowed && !allowed.includes(value)) {
    return f.vocabulary ? 'is not in the vocabulary of this field' : `must be one of: ${allowed.slice(0, 20).join(', ')}`;
  }
  if (value.length > (f.maxLength ?? DEFAULT_MAX_LENGTH)) return `must be at most ${f.maxLength ?? DEFAULT_MAX_LENGTH} characters`;
  if (f.pattern && !new RegExp(f.pattern, 'u').test(value)) return `must match the pattern ${f.pattern}`;
  return null;
}

function numberError(f: ProfileField, value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
  if (f.type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
  if (f.min !== undefined && value < f.min) return `must be at least ${f.min}`;
  if (f.max !== undefined && value > f.max) return `must be at most ${f.max}`;
  return null;
}

const parsedError = (schema: z.ZodType, value: unknown, message: string) =>
  typeof value === 'string' && schema.safeParse(value).success ? null : message;

/** What is wrong with `value` for this field, or null. A null value is "not set", which only `required` judges. */
export function valueError(f: ProfileField, value: unknown): string | null {
  switch (f.type) {
    case 'text':
    case 'choice':
      return textError(f, value);
    case 'number':
    case 'integer':
      return numberError(f, value);
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return parsedError(isoInstant, value, 'must be an ISO 8601 date or date-time, such as 2010-01-31');
    case 'url':
      return parsedError(webUrl, value, 'must be an http(s) URL');
    case 'email':
      return parsedError(email, value, 'must be an email address');
    case 'list': {
      if (!Array.isArray(value)) return 'must be a list of text';
      if (value.length > MAX_LIST) return `must have at most ${MAX_LIST} items`;
      const bad = value.map((item) => textError(f, item)).findIndex((e) => e !== null);
      return bad < 0 ? null : `item ${bad + 1} ${textError(f, value[bad])}`;
    }
  }
}

export const isEmptyValue = (value: unknown) =>
  value === undefined ||
  value === null ||
  (typeof value === 'string' && value.trim() === '') ||
  (Array.isArray(value) && value.length === 0);

/**
 * The errors of a write's profile values, at `customFields.<name>` under `prefix`. Only what the write
 * changes is judged: a value already stored stays valid after the profile changed (a field removed, its
 * choices narrowed), so a later write that sends it back unchanged, or does not touch it, keeps it. A key
 * the profile does not define is refused when new, once the profile defines any field (no profile: the
 * values are free, as a harvested CKAN record's scheming fields come). `requireAll` (an active dataset)
 * also names each required field left empty.
 */
export function profileValueErrors(
  fields: ProfileField[],
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  opts: { requireAll: boolean; prefix: string },
): FieldError[] {
  const byName = new Map(fields.map((f) => [f.name, f]));
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(after)) {
    if (isEmptyValue(value) || isDeepStrictEqual(before[key], value)) continue;
    const field = byName.get(key);
    const message = field ? valueError(field, value) : fields.length > 0 ? 'is not a field of this profile' : null;
    if (message) errors.push({ path: `${opts.prefix}.${key}`, message });
  }
  if (opts.requireAll) errors.push(...requiredMissing(fields, after, opts.prefix));
  return errors;
}

/** Each required field that `values` leaves empty. */
export const requiredMissing = (
  fields: ProfileField[],
  values: Record<string, unknown>,
  prefix: string,
  message = 'is required',
): FieldError[] => fields.filter((f) => f.required && isEmptyValue(values[f.name])).map((f) => ({ path: `${prefix}.${f.name}`, message }));

import { allowedValues, type ProfileField } from '../domain/metadata/profiles-fields.ts';

/**
 * The metadata profile's fields in the dataset form (issue 28 §1): what a post holds for each (as typed,
 * so a refused value is shown again as it was entered) and the `customFields` a write sends. The
 * judging is the domain's, the same as REST: the form only turns text into the field's type.
 */
export type CustomFormValues = Record<string, string | string[]>;

/** The form control of a field is named `customFields.<name>`, as the error path names it (a resource's: `resource.customFields.<name>`). */
export const controlName = (f: ProfileField, prefix = 'customFields') => `${prefix}.${f.name}`;

/** A list with a closed set of values is a group of checkboxes; any other field is one control. */
const isMultiple = (f: ProfileField) => f.type === 'list' && allowedValues(f) !== null;

export function customValuesOfForm(form: URLSearchParams, fields: ProfileField[], prefix?: string): CustomFormValues {
  const control = (f: ProfileField) => controlName(f, prefix);
  return Object.fromEntries(fields.map((f) => [f.name, isMultiple(f) ? form.getAll(control(f)) : (form.get(control(f)) ?? '')]));
}

/** A stored value as its control shows it. */
function displayed(f: ProfileField, value: unknown): string | string[] {
  if (value === undefined || value === null) return isMultiple(f) ? [] : '';
  if (Array.isArray(value)) return isMultiple(f) ? value.map(String) : value.map(String).join('\n');
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export const customValuesOfRecord = (fields: ProfileField[], stored: Record<string, unknown>): CustomFormValues =>
  Object.fromEntries(fields.map((f) => [f.name, displayed(f, stored[f.name])]));

/** The control's text as the field's type; text that is not of it goes as given, for the domain to name. */
function typed(f: ProfileField, raw: string | string[]): unknown {
  if (Array.isArray(raw)) return raw.length ? raw : null;
  const text = raw.trim();
  if (text === '') return null;
  switch (f.type) {
    case 'number':
    case 'integer':
      return Number.isFinite(Number(text)) ? Number(text) : text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'list':
      return raw
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean);
    default:
      return text;
  }
}

/**
 * The `customFields` a form post writes: the profile's fields as entered (an empty one cleared), over
 * the values the dataset holds outside the profile (kept from an earlier profile, or another
 * organization's), which the form shows read-only and must never clear.
 */
export function customFieldsOfForm(fields: ProfileField[], values: CustomFormValues, stored: Record<string, unknown>) {
  const names = new Set(fields.map((f) => f.name));
  const kept = Object.fromEntries(Object.entries(stored).filter(([key]) => !names.has(key)));
  const entered = fields.map((f) => [f.name, typed(f, values[f.name] ?? '')] as const).filter(([, value]) => value !== null);
  return { ...kept, ...Object.fromEntries(entered) };
}

/** The values the dataset holds that no field of the form shows. */
export const valuesOutsideProfile = (fields: ProfileField[], stored: Record<string, unknown>) =>
  Object.entries(stored).filter(([key]) => !fields.some((f) => f.name === key));

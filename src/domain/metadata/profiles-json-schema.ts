import type { FieldError } from '../errors.ts';
import { profileFieldList, type ProfileField } from './profiles-fields.ts';

/**
 * A profile's fields as JSON Schema (draft 2020-12) and back. Import takes a subset that maps one to one
 * onto the declarative fields, so both forms are checked by the same code: per property `type`
 * (string, number, integer, boolean, array of strings), `format` (date, date-time, uri, email), `enum` or
 * `oneOf` of `{const, title}` (labelled choices), `minimum`/`maximum`, `maxLength`, `pattern`, `items`,
 * `title`, `description`; `required` at the top. Other keywords are refused by name rather than ignored:
 * a profile that silently checked less than its schema says would be worse than none.
 */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

type Json = Record<string, unknown>;

function valueSchema(f: ProfileField): Json {
  const closed: Json = f.choices
    ? { oneOf: f.choices.map((c) => ({ const: c.value, ...(c.label ? { title: c.label } : {}) })) }
    : f.vocabulary
      ? { enum: f.vocabulary }
      : {};
  const text = {
    type: 'string',
    ...closed,
    ...(f.maxLength ? { maxLength: f.maxLength } : {}),
    ...(f.pattern ? { pattern: f.pattern } : {}),
  };
  const bounds = { ...(f.min !== undefined ? { minimum: f.min } : {}), ...(f.max !== undefined ? { maximum: f.max } : {}) };
  switch (f.type) {
    case 'text':
    case 'choice':
      return text;
    case 'number':
    case 'integer':
      return { type: f.type, ...bounds };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'url':
      return { type: 'string', format: 'uri' };
    case 'email':
      return { type: 'string', format: 'email' };
    case 'list':
      return { type: 'array', items: text };
  }
}

/** The JSON Schema of a `customFields` object. Other keys are allowed: a value kept from an earlier profile is still valid. */
export function fieldsToJsonSchema(fields: ProfileField[]): Json {
  return {
    type: 'object',
    properties: Object.fromEntries(
      fields.map((f) => [f.name, { title: f.label, ...(f.help ? { description: f.help } : {}), ...valueSchema(f) }]),
    ),
    required: fields.filter((f) => f.required).map((f) => f.name),
  };
}

const TOP_KEYWORDS = new Set(['$schema', '$id', 'title', 'description', 'type', 'properties', 'required', 'additionalProperties']);
const PROPERTY_KEYWORDS = new Set([
  'type',
  'format',
  'enum',
  'oneOf',
  'minimum',
  'maximum',
  'maxLength',
  'pattern',
  'items',
  'title',
  'description',
]);
const ITEM_KEYWORDS = new Set(['type', 'enum', 'oneOf', 'maxLength', 'pattern']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `enum` of strings, or `oneOf` of `{const, title}`, as choices. */
function closedList(s: Json, path: string, errors: FieldError[]) {
  if (Array.isArray(s.enum)) return { choices: s.enum.map((value) => ({ value })) };
  if (Array.isArray(s.oneOf)) {
    const ok = s.oneOf.every((o) => isObject(o) && Object.keys(o).every((k) => k === 'const' || k === 'title'));
    if (!ok) {
      errors.push({ path: `${path}.oneOf`, message: 'only a list of {const, title} is supported' });
      return {};
    }
    return { choices: s.oneOf.map((o: Json) => ({ value: o.const, ...(o.title !== undefined ? { label: o.title } : {}) })) };
  }
  return {};
}

function unknownKeywords(s: Json, allowed: Set<string>, path: string, errors: FieldError[]) {
  for (const key of Object.keys(s)) if (!allowed.has(key)) errors.push({ path: `${path}.${key}`, message: 'is not a supported keyword' });
}

function propertyToField(name: string, s: unknown, required: boolean, path: string, errors: FieldError[]): unknown {
  if (!isObject(s)) return void errors.push({ path, message: 'must be a schema object' });
  unknownKeywords(s, PROPERTY_KEYWORDS, path, errors);
  const base = { name, label: s.title ?? name, ...(s.description !== undefined ? { help: s.description } : {}), required };
  const textRules = (t: Json) => ({
    ...(t.maxLength !== undefined ? { maxLength: t.maxLength } : {}),
    ...(t.pattern !== undefined ? { pattern: t.pattern } : {}),
  });
  if (s.type === 'string') {
    const format = { date: 'date', 'date-time': 'date', uri: 'url', email: 'email' }[String(s.format)];
    if (s.format !== undefined && !format) errors.push({ path: `${path}.format`, message: 'must be date, date-time, uri or email' });
    const closed = closedList(s, path, errors);
    if (format) return { ...base, type: format };
    return { ...base, type: 'choices' in closed ? 'choice' : 'text', ...closed, ...textRules(s) };
  }
  if (s.type === 'number' || s.type === 'integer') {
    return {
      ...base,
      type: s.type,
      ...(s.minimum !== undefined ? { min: s.minimum } : {}),
      ...(s.maximum !== undefined ? { max: s.maximum } : {}),
    };
  }
  if (s.type === 'boolean') return { ...base, type: 'boolean' };
  if (s.type === 'array' && isObject(s.items) && s.items.type === 'string') {
    unknownKeywords(s.items, ITEM_KEYWORDS, `${path}.items`, errors);
    return { ...base, type: 'list', ...closedList(s.items, `${path}.items`, errors), ...textRules(s.items) };
  }
  errors.push({ path: `${path}.type`, message: 'must be string, number, integer, boolean, or array with items of type string' });
}

/** Fields from a JSON Schema of the supported subset, or the errors (paths under `path`) saying what it holds that is not. */
export function fieldsFromJsonSchema(schema: Json, path: string): { fields: ProfileField[] } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  unknownKeywords(schema, TOP_KEYWORDS, path, errors);
  if (schema.$schema !== undefined && schema.$schema !== JSON_SCHEMA_DIALECT) {
    errors.push({ path: `${path}.$schema`, message: `must be ${JSON_SCHEMA_DIALECT}` });
  }
  if (schema.type !== 'object' || !isObject(schema.properties))
    errors.push({ path: `${path}.type`, message: 'must be an object schema with properties' });
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const name of required)
    if (!(name in properties)) errors.push({ path: `${path}.required`, message: `names "${name}", which is not a property` });
  const raw = Object.entries(properties).map(([name, s]) =>
    propertyToField(name, s, required.has(name), `${path}.properties.${name}`, errors),
  );
  if (errors.length) return { errors };
  const parsed = profileFieldList.safeParse(raw);
  if (parsed.success) return { fields: parsed.data };
  const names = Object.keys(properties);
  return {
    errors: parsed.error.issues.map((i) => {
      const [index, ...rest] = i.path;
      return { path: [`${path}.properties.${names[Number(index)]}`, ...rest].join('.'), message: i.message };
    }),
  };
}

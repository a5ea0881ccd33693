import { DATASET_FIELDS } from '../../domain/datasets/field-table.ts';
import type { FieldError } from '../../domain/errors.ts';
import { DATASET_RECORD } from '../../domain/metadata/dataset-record.ts';
import { DISTRIBUTION_RECORD } from '../../domain/metadata/distribution-record.ts';
import { RESOURCE_FIELDS } from '../../domain/resources/field-table.ts';

/**
 * A domain error's fields, named as REST names them (`ownerOrg`, `resources.0.url`,
 * `customFields.theme_x`), under the keys a CKAN client sent (`owner_org`, `resources`, `theme_x`), in
 * CKAN's Validation Error shape: `{field: [messages]}`, and a resource's under its position in a list of
 * dicts, `resources: [{}, {url: [...]}]`, as CKAN's own validators give them.
 */

const ckanKeys = (tables: Array<Record<string, { ckan: string }>>, more: Record<string, string>) =>
  new Map([...tables.flatMap((t) => Object.entries(t).map(([k, f]) => [k, f.ckan] as const)), ...Object.entries(more)]);

// A resource action's fields are its dict's top level: their own names where a dataset has none.
const DATASET_KEYS = ckanKeys([RESOURCE_FIELDS, DISTRIBUTION_RECORD, DATASET_FIELDS, DATASET_RECORD], {
  ownerOrg: 'owner_org',
  urlType: 'url_type',
  customExtras: 'extras',
});
const RESOURCE_KEYS = ckanKeys([RESOURCE_FIELDS, DISTRIBUTION_RECORD], { urlType: 'url_type', customExtras: 'extras' });

/** zod's words for a value that was not sent, as CKAN says it. */
const ckanMessage = (message: string) => (/received undefined$/.test(message) ? 'Missing value' : message);

/** A REST path's first segments as a CKAN key: a profile field, a list's item, a renamed field. */
function keyOf(segments: string[], keys: Map<string, string>): string {
  const [first, second] = segments;
  if ((first === 'customFields' || first === 'customExtras') && second !== undefined && !/^\d+$/.test(second)) return second;
  return keys.get(first!) ?? first!;
}

export function ckanErrorFields(errors: FieldError[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  // Own keys only: a field named `constructor` must not find Object's.
  const push = (target: Record<string, unknown>, key: string, message: string) =>
    void ((Object.hasOwn(target, key) ? (target[key] as string[]) : (target[key] = [])) as string[]).push(ckanMessage(message));
  for (const { path, message } of errors) {
    const segments = path ? path.split('.') : [];
    if (segments.length === 0 || path === '(body)') {
      push(fields, 'message', message);
      continue;
    }
    if (segments[0] === 'resources' && segments[1] !== undefined && /^\d+$/.test(segments[1])) {
      const at = Number(segments[1]);
      const items = (Array.isArray(fields.resources) ? fields.resources : (fields.resources = [])) as Array<Record<string, unknown>>;
      while (items.length <= at) items.push({});
      push(items[at]!, segments.length > 2 ? keyOf(segments.slice(2), RESOURCE_KEYS) : 'message', message);
      continue;
    }
    push(fields, keyOf(segments, DATASET_KEYS), message);
  }
  return fields;
}

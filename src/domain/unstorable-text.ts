import { badRequest, type FieldError } from './errors.ts';

/** A UTF-16 surrogate without its other half: no UTF-8 encodes it, and PostgreSQL's jsonb refuses its escape. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unstorableText(text: string): string | undefined {
  if (text.includes('\0')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (no unpaired surrogate)';
  return undefined;
}

/**
 * Where the input holds text PostgreSQL cannot store (a NUL character, an unpaired surrogate), as a field
 * error: a value, or a key (`path.key`). Such text reaching a query is a 500, so every entry point asks
 * this before its action runs.
 */
export function unstorableAt(value: unknown, path = ''): FieldError | undefined {
  if (typeof value === 'string') {
    const message = unstorableText(value);
    return message ? { path: path || '(body)', message } : undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const at = [path, key].filter(Boolean).join('.');
      const message = unstorableText(key);
      if (message) return { path: at, message };
      const found = unstorableAt(child, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The 400 for such input, naming the field: each entry point words it its own way (problem, CKAN envelope, page). */
export const unstorableInput = (at: FieldError) => badRequest(`${at.path}: ${at.message}.`, [at]);

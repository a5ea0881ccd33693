import { DomainError, type FieldError } from '../../domain/errors.ts';

/**
 * A Validation Error whose fields already carry the action's own CKAN keys: the envelope groups them as
 * they are, where it maps other errors' REST paths by the dataset tables (error-fields.ts), which would
 * read a group's `type` as a dataset record's.
 */
export class CkanKeyedError extends DomainError {
  constructor(errors: FieldError[], detail = 'Some parameters are invalid.') {
    super('invalid_parameters', detail, errors);
  }
}

/**
 * Runs a domain call and names its bad fields by the action's parameters: `keys` maps a REST path
 * (`imageUrl`, `user`) or its first segment to the CKAN key (`image_url`, `username`); anything else is
 * snake_cased. A taken name, a conflict in the domain, is a Validation Error in CKAN ("Group name
 * already exists in database"), so a conflict naming its fields becomes one.
 */
export async function withCkanKeys<T>(keys: Record<string, string>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof DomainError) || err instanceof CkanKeyedError || !err.errors?.length) throw err;
    if (!['validation_failed', 'invalid_parameters', 'conflict'].includes(err.code)) throw err;
    throw new CkanKeyedError(
      err.errors.map((e) => ckanFieldError(keys, e)),
      err.message,
    );
  }
}

function ckanFieldError(keys: Record<string, string>, e: FieldError): FieldError {
  if (Object.hasOwn(keys, e.path)) return { path: keys[e.path], message: e.message };
  const [head] = e.path.split('.');
  const key = Object.hasOwn(keys, head) ? keys[head] : head.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return { path: key, message: e.path === head ? e.message : `${e.path.slice(head.length + 1)}: ${e.message}` };
}

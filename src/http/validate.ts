import type { ZodError } from 'zod';
import type { FieldError } from '../domain/errors.ts';

/** One entry per failing field, with a dotted path (`members.0.role`), as problem+json `errors`. */
export function fieldErrors(err: ZodError, prefix = ''): FieldError[] {
  return err.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      return { path: [path, ...issue.keys].filter(Boolean).join('.'), message: 'is not an accepted field' };
    }
    return { path: path || '(body)', message: issue.message };
  });
}

import type { Actor } from '../../../domain/actor.ts';
import type { DomainContext } from '../../../domain/context.ts';
import { invalidParameters } from '../../../domain/errors.ts';
import type { ActionParams } from '../params.ts';

/** What an action gets: the caller, the domain, its parameters; it returns the envelope's `result`. */
export interface ActionCall {
  domain: DomainContext;
  actor: Actor;
  params: ActionParams;
  /** Who holds the one-query-at-a-time lock (user id, else client address). */
  caller: string;
}

export interface Action {
  /** help_show's text. */
  help: string;
  run(call: ActionCall): Promise<unknown>;
}

/** A parameter that must be present: CKAN's "Missing value" Validation Error otherwise. */
export function required(params: ActionParams, key: string, ...aliases: string[]): string {
  for (const k of [key, ...aliases]) {
    const v = params.string(k);
    if (v !== undefined && v !== '') return v;
  }
  params.check();
  throw missing(key);
}

const missing = (key: string) => invalidParameters([{ path: key, message: 'Missing value' }]);

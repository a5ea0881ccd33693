import type { Actor } from '../../../domain/actor.ts';
import type { DomainContext } from '../../../domain/context.ts';
import { invalidParameters } from '../../../domain/errors.ts';
import type { UnitDeclaration } from '../../../policies/audited-runner.ts';
import type { ActionParams } from '../params.ts';

/** What an action gets: the caller, the domain, its parameters; it returns the envelope's `result`. */
export interface ActionCall {
  domain: DomainContext;
  actor: Actor;
  params: ActionParams;
  /** Who holds the one-query-at-a-time lock (user id, else client address). */
  caller: string;
}

/**
 * One action, as CKAN's `get_action` finds it: the router runs it through the audited runner as
 * `ckan:<name>`, so it must consult an authorization rule or say in `noPolicy` why it needs none.
 */
export interface Action extends UnitDeclaration {
  /** help_show's text. */
  help: string;
  /** A write action: POST only, as CKAN refuses a GET for any action that is not side-effect free. */
  write?: boolean;
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

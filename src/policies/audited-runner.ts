import fs from 'node:fs';
import { DomainError } from '../domain/errors.ts';
import { unstorableAt, unstorableInput } from '../domain/unstorable-text.ts';
import { auditPolicies, PolicyNotConsulted } from './audit.ts';

/**
 * CKAN's `get_action`: every entry point (REST routes, MCP tools, CKAN actions, web pages, feeds) runs
 * each of its units through one runner, so a new action, page or feed is audited from its first line.
 * The runner refuses text nothing can store, runs the action under the authorization audit when
 * self-checks are on, reports the unit to the test runner, and hands a domain refusal to the entry
 * point's own wire form (problem+json, CKAN's envelope, an HTML page, an MCP tool error).
 */

/** What an entry point declares about one of its units. */
export interface UnitDeclaration {
  /** Why this unit needs no authorization rule (a static file, help text): the audit asks every other one. */
  noPolicy?: string;
}

/** A unit as the self-check report names it: `GET /packages/{nameOrId}`, `ckan:package_show`, `web:GET /dataset/:name`. */
export interface Unit extends UnitDeclaration {
  key: string;
}

/** The report's name of a unit outside REST (whose route keys stay as they are). */
export const unitKey = (entry: 'mcp' | 'ckan' | 'web' | 'feed', name: string) => `${entry}:${name}`;

export interface SelfCheck {
  /** ALMANAC_SELF_CHECK: the test suite turns it on, so the whole suite is the audit. */
  selfCheck: boolean;
  /** A file that gets one line per unit that succeeded under the audit; test/run.ts fails a full run that left one out. */
  selfCheckReport?: string;
}

export interface RunOptions<W> {
  /** This entry point's wire form of a domain refusal. Anything else goes up to the entry point's last resort. */
  refuse: (err: DomainError) => W | Promise<W>;
  /**
   * Each source of the caller's raw text (path parameters, query, body), refused with a 400 when
   * PostgreSQL could not store it. Left out where the entry point's own parsing already refuses it more
   * precisely (REST).
   */
  inputs?: unknown[];
}

interface Logger {
  error(obj: object, msg: string): void;
}

/**
 * `log` is for entry points whose framework turns a thrown error into an answer without logging it (the
 * MCP SDK): the test helper reads the log for failed self-checks.
 */
export function auditedRunner(check: SelfCheck, log?: Logger) {
  return async function run<T, W>(unit: Unit, action: () => Promise<T>, options: RunOptions<W>): Promise<T | W> {
    try {
      for (const input of options.inputs ?? []) {
        const unstorable = unstorableAt(input);
        if (unstorable) throw unstorableInput(unstorable);
      }
      if (!check.selfCheck) return await action();
      const { result, consulted } = await auditPolicies(action);
      if (!consulted && !unit.noPolicy) {
        const err = new PolicyNotConsulted(`${unit.key} finished without consulting any authorization rule`);
        log?.error({ err }, 'self-check failed');
        throw err;
      }
      if (check.selfCheckReport) fs.appendFileSync(check.selfCheckReport, `${unit.key}\n`);
      return result;
    } catch (err) {
      if (err instanceof DomainError) return await options.refuse(err);
      throw err;
    }
  };
}

export type AuditedRunner = ReturnType<typeof auditedRunner>;

/**
 * Contract fuzzing with Schemathesis over /api/v1/openapi.json: a little catalog to find (seedCatalog),
 * the callers to fuzz as, and one Schemathesis run (runSchemathesis). The short run is
 * test/contract/schemathesis.test.ts; the long one scripts/contract-fuzz.ts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestApp } from '../helpers/app.ts';
import type { TestUser } from '../helpers/client.ts';

/** What a run checks on every response: no 5xx, the documented status, body schema and media type. */
export const CHECKS = ['not_a_server_error', 'status_code_conformance', 'response_schema_conformance', 'content_type_conformance'];

export interface Caller {
  name: string;
  /** Sent as `Authorization: Bearer …` on every request; none for the anonymous caller. */
  token?: string;
  /** Operations this caller must not fuzz (`DELETE /api/v1/admin/data`): they would wreck the seeded catalog. */
  exclude?: string[];
}

/**
 * What a caller with a token must not fuzz: revoking one's own tokens (an id the fuzzer reads from
 * GET /api-tokens) would sign the rest of its run out.
 */
export const SIGNS_OUT = ['DELETE /api/v1/api-tokens/{id}'];

export interface Seeded {
  /** A plain user, a member (not an editor) of the organization, so admin operations are 403 to them. */
  member: TestUser;
}

/**
 * An organization with a member, a public dataset with an uploaded CSV (so its preview, schema and query
 * have something to show) and a link, and a private dataset with a link.
 */
export async function seedCatalog(app: TestApp): Promise<Seeded> {
  const ok = async (what: string, reply: Promise<{ status: number; text: string; body: any }>) => {
    const res = await reply;
    if (res.status >= 300) throw new Error(`seeding: ${what} answered ${res.status} ${res.text}`);
    return res.body;
  };
  const member = await app.api.newUser('fuzz-member');
  await ok('organization', app.api.post('/api/v1/organizations', { name: 'fuzz-org', title: 'Fuzz organization' }, app.sysadmin));
  await ok('member', app.api.post('/api/v1/organizations/fuzz-org/members', { user: member.id, role: 'member' }, app.sysadmin));
  const dataset = (name: string, extra: Record<string, unknown>) =>
    ok(
      name,
      app.api.post(
        '/api/v1/packages',
        { name, title: `Fuzz ${name}`, ownerOrg: 'fuzz-org', licenseId: 'cc-by-4.0', tags: ['fuzz'], ...extra },
        app.sysadmin,
      ),
    );
  const link = { name: 'Landing page', urlType: 'link', url: 'https://example.org/data.csv', format: 'csv' };
  const open = await dataset('fuzz-public', { resources: [{ name: 'Table', urlType: 'upload', format: 'csv' }, link] });
  await dataset('fuzz-private', { private: true, resources: [link] });
  const upload = open.resources[0].id as string;
  await ok(
    'upload',
    app.api.request('POST', `/api/v1/resources/${upload}/upload`, 'city,population\nLyon,522250\nNantes,320732\n', {
      ...app.sysadmin,
      headers: { 'Content-Type': 'text/csv' },
    }),
  );
  return { member };
}

export interface RunOptions {
  /** Test cases per operation and phase. */
  maxExamples: number;
  phases: string[];
  /** Seconds for the whole run, at most. */
  maxTime?: number;
  seed?: number;
  checks?: string[];
  /** More arguments for `schemathesis run`. */
  extra?: string[];
}

export interface RunResult {
  /** Schemathesis' exit code: 0 when no check failed. */
  code: number;
  /** Its report as printed (standard output and error). */
  output: string;
}

/** `schemathesis run` over the app's OpenAPI document as `caller`. */
export function runSchemathesis(python: string, app: { url: string }, caller: Caller, opts: RunOptions): Promise<RunResult> {
  const args = [
    '-m',
    'schemathesis.cli',
    'run',
    `${app.url}/api/v1/openapi.json`,
    '--checks',
    (opts.checks ?? CHECKS).join(','),
    '--phases',
    opts.phases.join(','),
    '--max-examples',
    String(opts.maxExamples),
    ...(opts.maxTime ? ['--max-time', String(opts.maxTime)] : []),
    ...(opts.seed !== undefined ? ['--seed', String(opts.seed)] : []),
    // Nothing is written beside the sources: no example database, no report folder.
    '--generation-database',
    'none',
    '--no-color',
    '--request-timeout',
    '30',
    ...(caller.token ? ['--header', `Authorization: Bearer ${caller.token}`] : []),
    ...(caller.exclude ?? []).flatMap((operation) => ['--exclude-name', operation]),
    ...(opts.extra ?? []),
  ];
  // Schemathesis keeps a cache (.schemathesis/) where it runs: a scratch folder, not the checkout.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'almanac-schemathesis-'));
  return new Promise<RunResult>((resolve, reject) => {
    const child = spawn(python, args, {
      cwd: scratch,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PYTHONUNBUFFERED: '1' },
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString('utf8') }));
  }).finally(() => fs.rmSync(scratch, { recursive: true, force: true }));
}

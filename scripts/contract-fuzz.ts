/**
 * The long contract fuzzing run: Schemathesis over /api/v1/openapi.json of a fresh app (its own
 * PostgreSQL and Temporal, a seeded catalog), with more examples than the test suite's short run and the
 * stateful phase (sequences of calls that follow the responses' links), as an anonymous caller, an
 * organization member and the sysadmin (the operations that would wreck the catalog excluded).
 *
 *   npx tsx scripts/contract-fuzz.ts [--max-examples 100] [--max-time 1800] [--seed N]
 *     [--phases examples,coverage,fuzzing,stateful] [--callers anonymous,member,sysadmin] [--checks all]
 *
 * Exits 1 when a check failed for any caller; Schemathesis' report says which and how to reproduce it.
 */
import { parseArgs } from 'node:util';
import { createLogger } from '../src/logger.ts';
import { startTestApp, type TestApp } from '../test/helpers/app.ts';
import { startEngines } from '../test/helpers/engines.ts';
import { pythonTools } from '../test/helpers/tools.ts';
import { CHECKS, runSchemathesis, seedCatalog, SIGNS_OUT, type Caller } from '../test/contract/schemathesis.ts';

const { values } = parseArgs({
  options: {
    'max-examples': { type: 'string', default: '100' },
    'max-time': { type: 'string', default: '1800' },
    seed: { type: 'string' },
    phases: { type: 'string', default: 'examples,coverage,fuzzing,stateful' },
    callers: { type: 'string', default: 'anonymous,member,sysadmin' },
    checks: { type: 'string', default: CHECKS.join(',') },
  },
});

/** What the sysadmin must not fuzz: it would empty the catalog or remove what the other callers use. */
const SYSADMIN_EXCLUDED = [
  ...SIGNS_OUT,
  'DELETE /api/v1/admin/data',
  'DELETE /api/v1/admin/users/{userId}',
  'POST /api/v1/admin/users/{userId}/purge',
];

const log = createLogger(process.env.LOG_LEVEL ?? 'warn');
const progress = createLogger('info');
const python = await pythonTools(progress);
const engines = await startEngines('contract', log);
let failed = false;
let app: TestApp | undefined;
try {
  process.env.TEST_PG_URL = engines.pg.url('postgres');
  process.env.TEST_TEMPORAL_ADDRESS = engines.temporal.address;
  app = await startTestApp();
  const { member } = await seedCatalog(app);
  const { adminToken } = app;
  const callers: Record<string, Caller> = {
    anonymous: { name: 'anonymous' },
    member: { name: 'member', token: member.token, exclude: SIGNS_OUT },
    sysadmin: { name: 'sysadmin', token: adminToken, exclude: SYSADMIN_EXCLUDED },
  };
  // The sysadmin last: whatever its run changes, the others have had the seeded catalog as it was.
  for (const name of values.callers.split(',')) {
    const caller = callers[name];
    if (!caller) throw new Error(`unknown caller ${name}: anonymous, member or sysadmin`);
    progress.info(`schemathesis as ${name}…`);
    const result = await runSchemathesis(python, { url: app.url }, caller, {
      maxExamples: Number(values['max-examples']),
      maxTime: Number(values['max-time']),
      phases: values.phases.split(','),
      checks: values.checks.split(','),
      seed: values.seed === undefined ? undefined : Number(values.seed),
    });
    console.log(`\n===== ${name} =====\n${result.output}`);
    if (result.code !== 0) failed = true;
    // What the app warned of while this caller ran (the first 200 lines): a 5xx's why.
    const warnings = app.logs.splice(0).filter((line) => (JSON.parse(line) as { level: number }).level >= 40);
    if (warnings.length) console.log(`----- the app's warnings during ${name} -----\n${warnings.slice(0, 200).join('\n')}`);
  }
} finally {
  // A response that strayed from its schema fails the run too (the app's self-checks), said when it stops.
  await app?.stop().catch((err) => {
    console.error(String(err));
    failed = true;
  });
  await engines.stop();
}
process.exit(failed ? 1 : 0);

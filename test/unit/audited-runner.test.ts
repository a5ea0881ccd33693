import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { anonymous } from '../../src/domain/actor.ts';
import { DomainError, notFound } from '../../src/domain/errors.ts';
import { PolicyNotConsulted } from '../../src/policies/audit.ts';
import { auditedRunner } from '../../src/policies/audited-runner.ts';
import { can } from '../../src/policies/index.ts';
import { everyAuditedUnit, neverAuditedMessage, unitsNeverAudited } from '../helpers/audited-units.ts';

/** A runner under self-check writing its report to a fresh file; `refuse` shows the wire form it was given. */
async function selfChecking() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-audit-'));
  const report = path.join(dir, 'report.txt');
  const logged: string[] = [];
  const run = auditedRunner({ selfCheck: true, selfCheckReport: report }, { error: (_obj, msg) => logged.push(msg) });
  const refuse = (err: DomainError) => ({ wire: `${err.status} ${err.code}`, errors: err.errors });
  const reported = async () => (await fs.readFile(report, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { run, refuse, report, reported, logged, cleanUp: () => fs.rm(dir, { recursive: true, force: true }) };
}

test('an action that consults no rule fails under self-check, is logged, and is not reported', async (t) => {
  const { run, refuse, reported, logged, cleanUp } = await selfChecking();
  const error = await t.throwsAsync(
    run({ key: 'ckan:skips_its_rule' }, async () => 'leaked', { refuse }),
    {
      instanceOf: PolicyNotConsulted,
    },
  );
  t.regex(error.message, /ckan:skips_its_rule finished without consulting any authorization rule/);
  t.deepEqual(logged, ['self-check failed']);
  t.deepEqual(await reported(), []);
  await cleanUp();
});

test('an action that consults a rule passes and is reported; one that declares why it needs none too', async (t) => {
  const { run, refuse, reported, cleanUp } = await selfChecking();
  const consulted = await run({ key: 'web:GET /dataset' }, async () => can(anonymous, 'group:list'), { refuse });
  t.true(consulted);
  const declared = await run({ key: 'ckan:help_show', noPolicy: 'Help texts are documentation.' }, async () => 'help', { refuse });
  t.is(declared, 'help');
  t.deepEqual(await reported(), ['web:GET /dataset', 'ckan:help_show']);
  await cleanUp();
});

test('a domain refusal is answered in the wire form the entry point gave, not reported', async (t) => {
  const { run, refuse, reported, cleanUp } = await selfChecking();
  const answer = await run(
    { key: 'feed:GET /catalog' },
    async () => {
      throw notFound('Dataset');
    },
    { refuse },
  );
  t.deepEqual(answer, { wire: '404 not_found', errors: undefined });
  t.deepEqual(await reported(), []);
  await cleanUp();
});

test('text PostgreSQL cannot store is a 400 naming the field, before the action runs', async (t) => {
  const { run, refuse, cleanUp } = await selfChecking();
  let ran = false;
  const action = async () => {
    ran = true;
    return can(anonymous, 'group:list');
  };
  const nul = await run({ key: 'ckan:package_show' }, action, { refuse, inputs: [{}, { id: 'a\0b' }] });
  t.deepEqual(nul, { wire: '400 bad_request', errors: [{ path: 'id', message: 'must not contain NUL characters' }] });
  const nested = await run({ key: 'mcp:search_datasets' }, action, { refuse, inputs: [{ tags: ['ok', '\0'] }] });
  t.deepEqual(nested, { wire: '400 bad_request', errors: [{ path: 'tags.1', message: 'must not contain NUL characters' }] });
  const surrogate = await run({ key: 'web:GET /dataset' }, action, { refuse, inputs: [{ q: 'x\ud800' }] });
  t.like(surrogate, { wire: '400 bad_request' });
  t.false(ran);
  t.true(await run({ key: 'web:GET /dataset' }, action, { refuse, inputs: [{ q: 'plain text, é ✓ 😀' }] }));
  await cleanUp();
});

test('without self-check the action runs unaudited and nothing is reported', async (t) => {
  const run = auditedRunner({ selfCheck: false });
  t.is(await run({ key: 'ckan:skips_its_rule' }, async () => 'ran', { refuse: () => 'refused' }), 'ran');
});

test('the report covers every entry point, and a full run that left a unit out names it', async (t) => {
  const units = everyAuditedUnit();
  for (const expected of [
    'GET /packages/{nameOrId}',
    'mcp:search_datasets',
    'ckan:package_show',
    'web:GET /dataset/:name',
    'feed:GET /catalog.ttl',
  ]) {
    t.true(units.includes(expected), expected);
  }
  t.is(new Set(units).size, units.length, 'unit names are unique');

  // A run in which ckan:package_show only ever skipped its rule: it never succeeded under the audit.
  const { run, refuse, report, cleanUp } = await selfChecking();
  await run({ key: 'ckan:package_show' }, async () => 'leaked', { refuse }).catch(() => undefined);
  for (const unit of units.filter((u) => u !== 'ckan:package_show')) await fs.appendFile(report, `${unit}\n`);
  const missing = await unitsNeverAudited(report, units);
  t.deepEqual(missing, ['ckan:package_show']);
  t.regex(neverAuditedMessage(missing), /no test made these units succeed[^]*\n {2}ckan:package_show$/);
  await cleanUp();
});

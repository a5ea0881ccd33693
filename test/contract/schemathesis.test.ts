/**
 * The short contract fuzzing run (issue 16): Schemathesis generates requests from /api/v1/openapi.json,
 * valid and invalid, as an anonymous caller and as an organization member, and every answer must be no
 * server error, with a status, a media type and a body the document declares for that operation.
 * scripts/contract-fuzz.ts is the long run (more examples, the stateful phase, the sysadmin too).
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runSchemathesis, seedCatalog, SIGNS_OUT, type Caller } from './schemathesis.ts';

let app: TestApp;
const callers: Record<'anonymous' | 'member', Caller> = {
  anonymous: { name: 'anonymous' },
  member: { name: 'member', exclude: SIGNS_OUT },
};

test.before(async () => {
  app = await startTestApp();
  callers.member.token = (await seedCatalog(app)).member.token;
});
test.after.always(() => app?.stop());

/**
 * A few examples per operation, with a fixed seed so a failure is likely to repeat; the coverage phase
 * takes 20–40 s, and fuzzing goes on until the minute is spent.
 */
const SHORT_RUN = { maxExamples: 4, phases: ['examples', 'coverage', 'fuzzing'], maxTime: 60, seed: 16 };

const python = () => {
  const python = process.env.TEST_PYTHON;
  if (!python) throw new Error('TEST_PYTHON is not set: run the suite with `npm test`, which provisions Schemathesis');
  return python;
};

for (const name of ['anonymous', 'member'] as const) {
  test.serial(`Schemathesis finds no server error and nothing the document does not declare, as ${name}`, async (t) => {
    t.timeout(150_000);
    const result = await runSchemathesis(python(), app, callers[name], SHORT_RUN);
    // "2695 generated, 2695 passed": how much the run covered.
    t.log(
      result.output
        .split('\n')
        .find((line) => /^\s*\d+ generated/.test(line))
        ?.trim(),
    );
    t.is(result.code, 0, result.output);
  });
}

import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { HEALTH_MAX_AGE_MS, healthReporter } from '../../src/runtime/health.ts';

/** Components that count how often they are asked, the database answering after `delayMs`. */
function components(delayMs = 0) {
  const asked = { database: 0 };
  const up = () => Promise.resolve(true);
  const services = {
    orm: {
      // The pool's answers, which the database probe falls back on when its own query waits too long.
      em: { getKnex: () => new EventEmitter() },
      isConnected: async () => {
        asked.database++;
        await sleep(delayMs);
        return true;
      },
    },
    jobs: { isReachable: up },
    storage: { isHealthy: up },
    search: { vectors: { healthy: up }, embeddings: null },
  } as unknown as Parameters<typeof healthReporter>[0];
  return { services, asked };
}

test('callers within the max age share one check; concurrent callers join the one running', async (t) => {
  const { services, asked } = components(50);
  const report = healthReporter(services);
  const answers = await Promise.all(Array.from({ length: 20 }, () => report()));
  t.is(asked.database, 1);
  t.true(answers.every((a) => a.status === 'ok'));
  await report();
  t.is(asked.database, 1, 'answered again from memory');
});

test('past the max age the components are asked again', async (t) => {
  const { services, asked } = components();
  const report = healthReporter(services);
  await report();
  await sleep(HEALTH_MAX_AGE_MS + 50);
  await report();
  t.is(asked.database, 2);
});

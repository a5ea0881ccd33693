import test from 'ava';
import pg from 'pg';
import { listenToChannel } from '../../src/db-listener.ts';
import { createLogger } from '../../src/logger.ts';

/**
 * listenToChannel's sync(): once it resolves, every notification committed before the call has been
 * handed to the listener. The notifications here are many and large, so that right after the commit
 * most are still on their way: without the round trip the count below falls short.
 */
const baseUrl = process.env.TEST_PG_URL;
const NOTIFICATIONS = 2_000;

test('sync() resolves after every notification committed before it was called', async (t) => {
  if (!baseUrl) throw new Error('run the suite with `npm test`, which starts PostgreSQL');
  const heard: string[] = [];
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const channel = listenToChannel(
    baseUrl,
    'listener_sync_test',
    { onNotify: (payload) => heard.push(payload), onListening: () => listening(), lostMessage: 'lost' },
    createLogger('silent'),
  );
  const notifier = new pg.Client({ connectionString: baseUrl });
  await notifier.connect();
  t.teardown(async () => {
    await notifier.end();
    await channel.stop();
  });
  await ready;

  for (let round = 0; round < 3; round++) {
    const before = heard.length;
    await notifier.query(`select pg_notify('listener_sync_test', n || ':' || repeat('x', 4000)) from generate_series(1, $1) as n`, [
      NOTIFICATIONS,
    ]);
    t.true(await channel.sync());
    t.is(heard.length - before, NOTIFICATIONS, `round ${round}: all heard once sync() answered`);
  }
});

test('sync() answers false, at once, while the connection is not listening', async (t) => {
  if (!baseUrl) throw new Error('run the suite with `npm test`, which starts PostgreSQL');
  const channel = listenToChannel(
    'postgres://nobody@127.0.0.1:1/none',
    'listener_sync_test',
    { onNotify: () => undefined, lostMessage: 'lost' },
    createLogger('silent'),
  );
  t.teardown(() => channel.stop());
  t.false(await channel.sync());
});

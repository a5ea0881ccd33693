import test from 'ava';
import { expiredVersions, parseVersionRetention } from '../../src/domain/resources/version-retention.ts';

const NOW = new Date('2026-11-27T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);
const VERSIONS = [
  { n: 1, createdAt: daysAgo(40) },
  { n: 2, createdAt: daysAgo(20) },
  { n: 4, createdAt: daysAgo(5) },
  { n: 5, createdAt: daysAgo(1) },
];

test('VERSION_RETENTION reads all, last:N and days:N, and nothing else', (t) => {
  t.deepEqual(parseVersionRetention('all'), { keep: 'all' });
  t.deepEqual(parseVersionRetention('last:3'), { keep: 'last', count: 3 });
  t.deepEqual(parseVersionRetention('days:30'), { keep: 'days', days: 30 });
  for (const text of ['', 'last:0', 'days:-1', 'last:', 'last:2.5', 'keep', 'days:30d', ' all'])
    t.is(parseVersionRetention(text), null, text);
});

test('keeping all lets nothing go', (t) => {
  t.deepEqual(expiredVersions(VERSIONS, { keep: 'all' }, NOW), []);
});

test('keeping the last N counts versions, not numbers: a gap left by earlier pruning does not shorten it', (t) => {
  t.deepEqual(expiredVersions(VERSIONS, { keep: 'last', count: 2 }, NOW).sort(), [1, 2]);
  t.deepEqual(expiredVersions(VERSIONS, { keep: 'last', count: 3 }, NOW), [1]);
  t.deepEqual(expiredVersions(VERSIONS, { keep: 'last', count: 10 }, NOW), []);
});

test('keeping N days lets older versions go, but never the newest, however old', (t) => {
  t.deepEqual(expiredVersions(VERSIONS, { keep: 'days', days: 10 }, NOW).sort(), [1, 2]);
  t.deepEqual(expiredVersions(VERSIONS, { keep: 'days', days: 30 }, NOW), [1]);
  t.deepEqual(expiredVersions([{ n: 7, createdAt: daysAgo(400) }], { keep: 'days', days: 1 }, NOW), []);
  t.deepEqual(expiredVersions([{ n: 7, createdAt: daysAgo(400) }], { keep: 'last', count: 1 }, NOW), []);
});

test('a held version and the one served while it waits are kept, however old; declined and superseded ones age as any other', (t) => {
  const held = [
    { n: 1, createdAt: daysAgo(400), review: null },
    { n: 2, createdAt: daysAgo(300), review: 'superseded' as const },
    { n: 3, createdAt: daysAgo(200), review: 'declined' as const },
    { n: 4, createdAt: daysAgo(100), review: 'pending' as const },
  ];
  t.deepEqual(expiredVersions(held, { keep: 'last', count: 1 }, NOW).sort(), [2, 3]);
  t.deepEqual(expiredVersions(held, { keep: 'days', days: 1 }, NOW).sort(), [2, 3]);
  const accepted = [...held.slice(0, 3), { n: 4, createdAt: daysAgo(100), review: 'accepted' as const }];
  t.deepEqual(expiredVersions(accepted, { keep: 'last', count: 1 }, NOW).sort(), [1, 2, 3]);
});

import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';

/**
 * Writes that create the same new tags at once (a catalog loaded by several workers, a harvest beside
 * publishers): each creates or finds every tag, whatever order its tags are listed in, and none is
 * refused. Listed the other way round, two inserts of the same new names waited for each other (a
 * deadlock: one write failed).
 */

let app: TestApp;

test.before(async (t) => {
  app = await startTestApp();
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'tagsconc-org' }, {});
});
test.after.always(async () => app?.stop());

test('datasets created at once with the same new tags in opposite orders are all created, with every tag', async (t) => {
  const auth = { token: app.adminToken };
  for (let round = 0; round < 5; round++) {
    const tags = Array.from({ length: 300 }, (_, i) => `round${round}-tag${String(i).padStart(3, '0')}`);
    const replies = await Promise.all(
      [tags, [...tags].reverse(), tags, [...tags].reverse(), tags, [...tags].reverse()].map((list, i) =>
        app.api.post(
          '/api/v1/packages',
          { name: `tagsconc-${round}-${i}`, ownerOrg: 'tagsconc-org', licenseId: 'cc-by', tags: list },
          auth,
        ),
      ),
    );
    for (const reply of replies) {
      t.is(reply.status, 201, reply.text);
      t.deepEqual([...reply.body.tags].sort(), tags);
    }
  }
});

import test from 'ava';
import { semanticEnv, startTestApp, vectorsCaughtUp, type TestApp } from '../helpers/app.ts';

/**
 * The search page with the real embedding model: a dataset found by meaning alone says so and shows the
 * passage that matched; a private one stays out of an anonymous visitor's page.
 */

let app: TestApp;
test.before(async () => {
  app = await startTestApp(semanticEnv());
  const admin = app.sysadmin;
  await app.api.post('/api/v1/organizations', { name: 'websem-transport' }, admin);
  const create = (body: Record<string, unknown>) =>
    app.api.post('/api/v1/packages', { ownerOrg: 'websem-transport', licenseId: 'cc-by-4.0', ...body }, admin);
  await create({
    name: 'motor-vehicle-collisions',
    title: 'Motor Vehicle Collisions',
    notes: 'Every police-reported collision between automobiles on city streets, with injuries and fatalities.',
  });
  await create({ name: 'school-lunch-programs', title: 'School Lunch Programs', notes: 'Meals served in public schools.' });
  await create({
    name: 'websem-secret-crashes',
    title: 'Secret Crash Files',
    private: true,
    notes: 'Internal files on deadly car crashes.',
  });
  await vectorsCaughtUp(app);
});
test.after.always(async () => app?.stop());

test('a hit found by meaning alone is said so on the page, with the passage that matched', async (t) => {
  const reply = await app.api.get('/dataset?q=car+crashes', { headers: { Accept: 'text/html' } });
  t.is(reply.status, 200);
  const card = reply.text.slice(reply.text.indexOf('href="/dataset/motor-vehicle-collisions"'));
  t.true(card.length < reply.text.length, 'the paraphrase is found');
  const firstCard = card.slice(0, card.indexOf('</li>'));
  t.true(firstCard.includes('Matched by meaning; close in meaning to its description'), firstCard);
  t.regex(firstCard, /<blockquote class="passage">[^<]*collision/i);
  t.true(reply.text.includes(' · keywords and meaning'));
  t.false(reply.text.includes('School Lunch'), 'an unrelated dataset stays out');
  t.false(reply.text.includes('Secret Crash Files'), 'a private one stays out for an anonymous visitor');
});

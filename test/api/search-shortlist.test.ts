import { randomBytes } from 'node:crypto';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { unique } from '../helpers/names.ts';

/**
 * The keyword rank's shortlist (SEARCH_RANK_SHORTLIST, here 2): only the matches whose title or name
 * holds the query's words get their full rank when there are more matches than the shortlist, while the
 * count still counts every match and a deep page ranks as many as it reaches.
 */

let app: TestApp;
let other: TestApp;
test.before(async () => {
  [app, other] = await Promise.all([startTestApp({ SEARCH_RANK_SHORTLIST: '2' }), startTestApp()]);
});
test.after.always(async () => Promise.all([app?.stop(), other?.stop()]));

// Ends in `ty`, which English stemming rewrites (`…ty` → `…ti`): the shortlist must still find the word in
// the titles as written (titleProbe).
const word = () => Array.from(randomBytes(8), (b) => String.fromCharCode(97 + (b % 26))).join('') + 'ty';

async function seed(target: TestApp, w: string) {
  const auth = { token: target.adminToken };
  const org = unique('short');
  await target.api.post('/api/v1/organizations', { name: org }, auth);
  const make = async (name: string, title: string, notes: string) => {
    const res = await target.api.post('/api/v1/packages', { name, title, notes, ownerOrg: org, licenseId: 'cc-by-4.0' }, auth);
    if (res.status !== 201) throw new Error(res.text);
  };
  // The word once in a title; many times in a description, which the full rank weighs above one title word.
  await make(unique('title-a'), `Counts of ${w} by year`, 'Yearly counts.');
  await make(unique('title-b'), `${w} stations`, 'Station list.');
  for (const n of [1, 2, 3]) await make(unique(`notes-${n}`), `Other table ${n}`, Array(30).fill(w).join(' and '));
}

const search = (target: TestApp, w: string, page: string) => target.api.get(`/api/v1/packages?q=${w}&semantic=false&${page}`);

test('past the shortlist, the matches whose titles hold the words are ranked; the count is every match', async (t) => {
  const w = word();
  await Promise.all([seed(app, w), seed(other, w)]);

  // Without a shortlist in the way (the default 1,000), the description that repeats the word ranks first.
  const whole = await search(other, w, 'limit=1');
  t.is(whole.body.count, 5);
  t.regex(whole.body.results[0].name, /^notes-/);

  // With a shortlist of 2, the first page ranks the two title matches only.
  const first = await search(app, w, 'limit=1');
  t.is(first.status, 200, first.text);
  t.is(first.body.count, 5, 'the count is every match');
  t.regex(first.body.results[0].name, /^title-/);

  // A page reaching past the shortlist ranks twice its reach: all five here, in the full rank's order.
  const deep = await search(app, w, 'limit=5&offset=0');
  const ranked = await search(other, w, 'limit=5&offset=0');
  const kinds = (reply: typeof deep) => reply.body.results.map((d: { name: string }) => d.name.split('-')[0]);
  t.deepEqual(kinds(deep), ['notes', 'notes', 'notes', 'title', 'title']);
  t.deepEqual(kinds(deep), kinds(ranked));
});

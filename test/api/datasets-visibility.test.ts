import test from 'ava';
import { isProblem } from '../helpers/problem.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { Auth, Reply } from '../helpers/client.ts';

/**
 * The visibility rule of issue 3 item 3 as a matrix over HTTP: every actor × every subject × every read
 * path is one test, and its title names the cell. The expectations are data (`SEES` below), written from
 * the spec and DESIGN §4, not derived from the policy code under test.
 *
 * All fixtures are created once in `test.before`; tests run concurrently and only read, or attempt writes
 * that must be refused, so the counts and formats of this file's database stay exactly the fixtures'.
 */

type User = Awaited<ReturnType<TestApp['api']['newUser']>>;

const ACTORS = [
  'anonymous',
  'plain',
  'orgMember',
  'orgEditor',
  'orgAdmin',
  'otherOrgMember',
  'categoryMember',
  'draftCreator',
  'sysadmin',
] as const;
type ActorKey = (typeof ACTORS)[number];

const SUBJECTS = ['public', 'private', 'orgDraft', 'ownDraft', 'deleted'] as const;
type SubjectKey = (typeof SUBJECTS)[number];

/** Each subject's one link resource has its own format, so /resources/formats shows whose are counted. */
const FORMAT: Record<SubjectKey, string> = {
  public: 'FMT-PUBLIC',
  private: 'FMT-PRIVATE',
  orgDraft: 'FMT-ORGDRAFT',
  ownDraft: 'FMT-OWNDRAFT',
  deleted: 'FMT-DELETED',
};

/** Each subject carries its own tag, so tag lists show whose tags are counted. */
const TAG: Record<SubjectKey, string> = {
  public: 'vis-tag-public',
  private: 'vis-tag-private',
  orgDraft: 'vis-tag-orgdraft',
  ownDraft: 'vis-tag-owndraft',
  deleted: 'vis-tag-deleted',
};

const ORG_A_READERS: ActorKey[] = ['orgMember', 'orgEditor', 'orgAdmin', 'sysadmin'];
const ORG_A_EDITORS: ActorKey[] = ['orgEditor', 'orgAdmin', 'sysadmin'];

/**
 * Who may see each subject at all (the expected rule): active public → everyone; active private → org A
 * members and up, and sysadmins; the org A draft (created by the org A editor) → org A editors and up, and
 * sysadmins; the draft without organization → its creator and sysadmins; the soft-deleted dataset → org A
 * editors and up, and sysadmins.
 */
const SEES: Record<SubjectKey, readonly ActorKey[]> = {
  public: ACTORS,
  private: ORG_A_READERS,
  orgDraft: ORG_A_EDITORS,
  ownDraft: ['draftCreator', 'sysadmin'],
  deleted: ORG_A_EDITORS,
};

/** Who may edit each subject (write cells are generated only for actors outside this list). */
const EDITS: Record<SubjectKey, readonly ActorKey[]> = {
  public: ORG_A_EDITORS,
  private: ORG_A_EDITORS,
  orgDraft: ORG_A_EDITORS,
  ownDraft: ['draftCreator', 'sysadmin'],
  deleted: ORG_A_EDITORS,
};

const isDraft = (s: SubjectKey) => s === 'orgDraft' || s === 'ownDraft';
const sees = (a: ActorKey, s: SubjectKey) => SEES[s].includes(a);

interface Subject {
  id: string;
  name: string;
  resourceId: string;
  resourceUrl: string;
}

const API = '/api/v1';
let app: TestApp;
let users: Record<Exclude<ActorKey, 'anonymous' | 'sysadmin'>, User>;
let subjects: Record<SubjectKey, Subject>;
let orgA: { id: string; name: string };

function auth(a: ActorKey): Auth {
  if (a === 'anonymous') return {};
  if (a === 'sysadmin') return { token: app.adminToken };
  return { token: users[a].token };
}

function expectStatus(reply: Reply, status: number, what: string) {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text}`);
  return reply.body;
}

test.before(async () => {
  app = await startTestApp();
  const admin = { token: app.adminToken };
  const [plain, orgMember, orgEditor, orgAdmin, otherOrgMember, categoryMember, draftCreator] = await Promise.all(
    ['vis-plain', 'vis-org-member', 'vis-org-editor', 'vis-org-admin', 'vis-other-member', 'vis-category-member', 'vis-draft-creator'].map(
      (n) => app.api.newUser(n),
    ),
  );
  users = { plain, orgMember, orgEditor, orgAdmin, otherOrgMember, categoryMember, draftCreator };

  orgA = expectStatus(await app.api.post(`${API}/organizations`, { name: 'vis-org-a', title: 'Org A' }, admin), 201, 'create org A');
  expectStatus(await app.api.post(`${API}/organizations`, { name: 'vis-org-b', title: 'Org B' }, admin), 201, 'create org B');
  expectStatus(await app.api.post(`${API}/groups`, { name: 'vis-category', title: 'Category' }, admin), 201, 'create category');
  for (const [org, user, role] of [
    ['vis-org-a', orgMember, 'member'],
    ['vis-org-a', orgEditor, 'editor'],
    ['vis-org-a', orgAdmin, 'admin'],
    ['vis-org-b', otherOrgMember, 'member'],
  ] as const) {
    expectStatus(
      await app.api.post(`${API}/organizations/${org}/members`, { user: user.id, role }, admin),
      201,
      `add ${user.username} to ${org}`,
    );
  }
  expectStatus(
    await app.api.post(`${API}/groups/vis-category/members`, { user: categoryMember.id, role: 'member' }, admin),
    201,
    'add category member',
  );
  // The org A editor may place datasets in the category too (a category role is what adding one needs).
  expectStatus(
    await app.api.post(`${API}/groups/vis-category/members`, { user: orgEditor.id, role: 'member' }, admin),
    201,
    'add editor to category',
  );

  const link = (s: SubjectKey) => ({ urlType: 'link', url: `https://example.org/vis/${s}.dat`, name: `${s} file`, format: FORMAT[s] });
  const active = async (s: SubjectKey, isPrivate: boolean) => {
    const body = {
      name: `vis-${s.toLowerCase()}`,
      title: `Subject ${s}`,
      ownerOrg: 'vis-org-a',
      licenseId: 'cc-by-4.0',
      private: isPrivate,
      groups: ['vis-category'],
      tags: [TAG[s]],
      resources: [link(s)],
    };
    const created = expectStatus(await app.api.post(`${API}/packages`, body, { token: orgEditor.token }), 201, `create ${s}`);
    return { id: created.id, name: created.name, resourceId: created.resources[0].id, resourceUrl: link(s).url } as Subject;
  };
  const draft = async (s: SubjectKey, creator: User, fields: Record<string, unknown>) => {
    const created = expectStatus(
      await app.api.post(
        `${API}/packages/drafts`,
        { name: `vis-${s.toLowerCase()}`, title: `Subject ${s}`, tags: [TAG[s]], ...fields },
        { token: creator.token },
      ),
      201,
      `create ${s}`,
    );
    const res = expectStatus(
      await app.api.post(`${API}/packages/${created.id}/resources`, link(s), { token: creator.token }),
      201,
      `add resource to ${s}`,
    );
    return { id: created.id, name: created.name, resourceId: res.id, resourceUrl: link(s).url } as Subject;
  };

  subjects = {
    public: await active('public', false),
    private: await active('private', true),
    orgDraft: await draft('orgDraft', orgEditor, {
      ownerOrg: 'vis-org-a',
      licenseId: 'cc-by-4.0',
      private: false,
      groups: ['vis-category'],
    }),
    ownDraft: await draft('ownDraft', draftCreator, {}),
    deleted: await active('deleted', false),
  };
  expectStatus(await app.api.delete(`${API}/packages/${subjects.deleted.id}`, { token: orgEditor.token }), 204, 'soft-delete');
});
test.after.always(async () => app?.stop());

// --- the fixtures are what the matrix assumes ---------------------------------------------------------

test('fixtures: each subject is in the state the matrix assumes (seen by the sysadmin)', async (t) => {
  const admin = auth('sysadmin');
  const states: Record<SubjectKey, string> = {
    public: 'active',
    private: 'active',
    orgDraft: 'draft',
    ownDraft: 'draft',
    deleted: 'deleted',
  };
  for (const s of SUBJECTS) {
    const reply = await app.api.get(`${API}/packages/${subjects[s].id}${isDraft(s) ? '?state=draft' : ''}`, admin);
    t.is(reply.status, 200, `${s}: ${reply.text}`);
    t.is(reply.body.state, states[s], s);
    t.is(reply.body.private, s === 'private', `${s}.private`);
    t.is(reply.body.ownerOrg, s === 'ownDraft' ? null : orgA.id, `${s}.ownerOrg`);
  }
  t.is((await app.api.get(`${API}/packages/${subjects.ownDraft.id}?state=draft`, admin)).body.creatorUserId, users.draftCreator.id);
  t.is((await app.api.get(`${API}/packages/${subjects.orgDraft.id}?state=draft`, admin)).body.creatorUserId, users.orgEditor.id);
});

// --- read paths -----------------------------------------------------------------------------------------

interface ReadPath {
  label: string;
  url: (s: Subject) => string;
  /** Expected status of the cell; 200 means the body is checked by `check`. */
  expect: (a: ActorKey, s: SubjectKey) => number;
  check: (reply: Reply, subject: Subject, key: SubjectKey) => Array<[actual: unknown, expected: unknown, what: string]>;
}

const STATE_OF: Record<SubjectKey, string> = {
  public: 'active',
  private: 'active',
  orgDraft: 'draft',
  ownDraft: 'draft',
  deleted: 'deleted',
};

const detailCheck: ReadPath['check'] = (reply, subject, key) => [
  [reply.body?.id, subject.id, 'id'],
  [reply.body?.name, subject.name, 'name'],
  [reply.body?.state, STATE_OF[key], 'state'],
  [reply.body?.resources?.map((r: { id: string }) => r.id), [subject.resourceId], 'resources'],
];

const READ_PATHS: ReadPath[] = [
  {
    label: 'GET /packages/{name}',
    url: (s) => `${API}/packages/${s.name}`,
    // Drafts are found only with ?state=draft: a plain GET is 404 for everyone.
    expect: (a, s) => (!isDraft(s) && sees(a, s) ? 200 : 404),
    check: detailCheck,
  },
  {
    label: 'GET /packages/{id}',
    url: (s) => `${API}/packages/${s.id}`,
    expect: (a, s) => (!isDraft(s) && sees(a, s) ? 200 : 404),
    check: detailCheck,
  },
  {
    label: 'GET /packages/{id}?state=draft',
    url: (s) => `${API}/packages/${s.id}?state=draft`,
    // `?state=draft` needs auth (spec §4): 401 for anonymous whatever the subject; it finds drafts only.
    expect: (a, s) => (a === 'anonymous' ? 401 : isDraft(s) && sees(a, s) ? 200 : 404),
    check: detailCheck,
  },
  {
    label: 'GET /packages/{name}?state=draft',
    url: (s) => `${API}/packages/${s.name}?state=draft`,
    expect: (a, s) => (a === 'anonymous' ? 401 : isDraft(s) && sees(a, s) ? 200 : 404),
    check: detailCheck,
  },
  {
    label: 'GET /packages/{id}/resources',
    url: (s) => `${API}/packages/${s.id}/resources`,
    expect: (a, s) => (sees(a, s) ? 200 : 404),
    check: (reply, subject) => [
      [reply.body?.count, 1, 'count'],
      [reply.body?.results?.map((r: { id: string }) => r.id), [subject.resourceId], 'results'],
    ],
  },
  {
    label: 'GET /resources/{id}',
    url: (s) => `${API}/resources/${s.resourceId}`,
    expect: (a, s) => (sees(a, s) ? 200 : 404),
    check: (reply, subject, key) => [
      [reply.body?.id, subject.resourceId, 'id'],
      [reply.body?.packageId, subject.id, 'packageId'],
      [reply.body?.url, subject.resourceUrl, 'url'],
      [reply.body?.format, FORMAT[key], 'format'],
    ],
  },
];

for (const actor of ACTORS) {
  for (const key of SUBJECTS) {
    for (const path of READ_PATHS) {
      const status = path.expect(actor, key);
      test(`read: ${actor} × ${key} × ${path.label} → ${status}`, async (t) => {
        const subject = subjects[key];
        const reply = await app.api.get(path.url(subject), auth(actor));
        const cell = `${actor} × ${key} × ${path.label}`;
        t.is(reply.status, status, `${cell}: ${reply.text}`);
        if (status === 200) {
          for (const [actual, expected, what] of path.check(reply, subject, key)) t.deepEqual(actual, expected, `${cell}: ${what}`);
        } else if (status === 404) {
          isProblem(t, reply, 404, 'not_found');
        } else {
          isProblem(t, reply, 401, 'unauthenticated');
        }
      });
    }
  }
}

// --- listings -------------------------------------------------------------------------------------------

/** Active subjects the actor sees; a listing shows private ones only with `private=true`. */
const activeSeen = (a: ActorKey, withPrivate: boolean): SubjectKey[] =>
  (['public', 'private'] as const).filter((s) => sees(a, s) && (withPrivate || s === 'public'));

interface ListPath {
  label: string;
  url: string;
  /** The subjects listed, or a status when the listing is refused. */
  expect: (a: ActorKey) => SubjectKey[] | 401;
}

const LIST_PATHS: ListPath[] = [
  { label: 'GET /packages', url: `${API}/packages?limit=100`, expect: (a) => activeSeen(a, false) },
  { label: 'GET /packages?private=true', url: `${API}/packages?private=true&limit=100`, expect: (a) => activeSeen(a, true) },
  {
    label: 'GET /packages?q=subject&private=true',
    url: `${API}/packages?q=subject&private=true&limit=100`,
    expect: (a) => activeSeen(a, true),
  },
  {
    label: 'GET /packages?q=subjekt (typo fallback)',
    url: `${API}/packages?q=subjekt&private=true&limit=100`,
    expect: (a) => activeSeen(a, true),
  },
  {
    label: 'GET /packages?tags=…&private=true',
    url: `${API}/packages?${SUBJECTS.map((s) => `tags=${TAG[s]}`).join('&')}&private=true&limit=100`,
    expect: (a) => activeSeen(a, true),
  },
  {
    label: 'GET /packages?state=deleted&private=true',
    url: `${API}/packages?state=deleted&private=true&limit=100`,
    // Listing deleted datasets needs a login; then it shows what the actor may see in that state.
    expect: (a) => (a === 'anonymous' ? 401 : sees(a, 'deleted') ? ['deleted'] : []),
  },
  {
    label: 'GET /packages?state=draft&private=true',
    url: `${API}/packages?state=draft&private=true&limit=100`,
    // Draft listing rule 1: the caller's own drafts plus drafts of organizations where it is editor or
    // above. No sysadmin exception: it is a work list, not an audit view.
    expect: (a) => {
      if (a === 'anonymous') return 401;
      const listed: SubjectKey[] = [];
      if (['orgEditor', 'orgAdmin'].includes(a)) listed.push('orgDraft');
      if (a === 'draftCreator') listed.push('ownDraft');
      return listed;
    },
  },
];

for (const actor of ACTORS) {
  for (const path of LIST_PATHS) {
    const expected = path.expect(actor);
    test(`list: ${actor} × ${path.label} → ${expected === 401 ? 401 : `[${expected.join(', ')}]`}`, async (t) => {
      const reply = await app.api.get(path.url, auth(actor));
      const cell = `${actor} × ${path.label}`;
      if (expected === 401) {
        isProblem(t, reply, 401, 'unauthenticated');
        return;
      }
      t.is(reply.status, 200, `${cell}: ${reply.text}`);
      const names = reply.body.results.map((d: { name: string }) => d.name).sort();
      t.deepEqual(names, expected.map((s) => subjects[s].name).sort(), cell);
      t.is(reply.body.count, expected.length, `${cell}: count`);
    });
  }

  const seen = activeSeen(actor, true);
  test(`facets: ${actor} × GET /packages?include_facets=true&private=true counts exactly [${seen.join(', ')}]`, async (t) => {
    const reply = await app.api.get(`${API}/packages?include_facets=true&private=true`, auth(actor));
    t.is(reply.status, 200, reply.text);
    const facets = reply.body.facets;
    const orgCount = facets.organization.find((f: { name: string }) => f.name === 'vis-org-a')?.count ?? 0;
    t.is(orgCount, seen.length, 'organization facet');
    t.is(facets.groups.find((f: { name: string }) => f.name === 'vis-category')?.count ?? 0, seen.length, 'groups facet');
    t.deepEqual(facets.tags.map((f: { name: string }) => f.name).sort(), seen.map((s) => TAG[s]).sort(), 'tags facet');
    t.deepEqual(facets.res_format.map((f: { name: string }) => f.name).sort(), seen.map((s) => FORMAT[s]).sort(), 'res_format facet');
  });

  test(`tags: ${actor} × GET /tags lists exactly the tags of [${seen.join(', ')}]`, async (t) => {
    const reply = await app.api.get(`${API}/tags?q=vis-tag&limit=100`, auth(actor));
    t.is(reply.status, 200, reply.text);
    t.deepEqual(reply.body.results.map((tag: { name: string }) => tag.name).sort(), seen.map((s) => TAG[s]).sort());
  });

  test(`package counts: ${actor} × organization and category packageCount count exactly [${seen.join(', ')}]`, async (t) => {
    for (const url of [`${API}/organizations/vis-org-a`, `${API}/groups/vis-category`]) {
      const reply = await app.api.get(url, auth(actor));
      t.is(reply.status, 200, reply.text);
      t.is(reply.body.packageCount, seen.length, url);
    }
  });
}

// --- counts and formats ---------------------------------------------------------------------------------

/** Resources of ACTIVE datasets the actor may see: public for all, private for org A members+ and sysadmins. */
const countedSubjects = (a: ActorKey): SubjectKey[] => (['public', 'private'] as const).filter((s) => sees(a, s));

for (const actor of ACTORS) {
  const counted = countedSubjects(actor);
  test(`counts: ${actor} × /resources/count and /resources/formats count exactly [${counted.join(', ')}]`, async (t) => {
    const count = await app.api.get(`${API}/resources/count`, auth(actor));
    t.is(count.status, 200, count.text);
    t.deepEqual(count.body, { count: counted.length }, `${actor} × /resources/count`);

    const formats = await app.api.get(`${API}/resources/formats`, auth(actor));
    t.is(formats.status, 200, formats.text);
    const expected = counted.map((s) => ({ format: FORMAT[s], count: 1 })).sort((x, y) => x.format.localeCompare(y.format));
    t.deepEqual(formats.body?.results, expected, `${actor} × /resources/formats`);
    t.is(formats.body?.count, expected.length, `${actor} × /resources/formats count`);
  });
}

// --- write paths ----------------------------------------------------------------------------------------

/**
 * Writes are attempted only where they must be refused, so the fixtures never change: anonymous → 401;
 * a subject the actor cannot see → 404; one the actor sees but may not edit → 403.
 */
interface WritePath {
  label: string;
  send: (s: Subject, key: SubjectKey, a: Auth) => Promise<Reply>;
}

const WRITE_PATHS: WritePath[] = [
  {
    label: 'PUT /packages/{id}',
    send: (s, key, a) =>
      app.api.put(
        `${API}/packages/${s.id}`,
        isDraft(key)
          ? { title: 'hijacked' }
          : { name: s.name, title: 'hijacked', ownerOrg: 'vis-org-a', licenseId: 'cc-by-4.0', private: key === 'private' },
        a,
      ),
  },
  { label: 'DELETE /packages/{id}', send: (s, _key, a) => app.api.delete(`${API}/packages/${s.id}`, a) },
  {
    label: 'POST /packages/{id}/resources',
    send: (s, key, a) =>
      app.api.post(
        `${API}/packages/${s.id}/resources`,
        { urlType: 'link', url: `https://example.org/vis/${key}-extra.dat`, format: 'FMT-INTRUDER' },
        a,
      ),
  },
  {
    label: 'PUT /resources/{id}',
    send: (s, key, a) =>
      app.api.put(`${API}/resources/${s.resourceId}`, { urlType: 'link', url: s.resourceUrl, name: 'hijacked', format: FORMAT[key] }, a),
  },
  { label: 'DELETE /resources/{id}', send: (s, _key, a) => app.api.delete(`${API}/resources/${s.resourceId}`, a) },
];

for (const actor of ACTORS) {
  for (const key of SUBJECTS) {
    if (EDITS[key].includes(actor)) continue;
    const status = actor === 'anonymous' ? 401 : sees(actor, key) ? 403 : 404;
    const code = { 401: 'unauthenticated', 403: 'forbidden', 404: 'not_found' }[status]!;
    test(`write: ${actor} × ${key} → ${status} on every write path`, async (t) => {
      for (const path of WRITE_PATHS) {
        const reply = await path.send(subjects[key], key, auth(actor));
        const cell = `${actor} × ${key} × ${path.label}`;
        t.is(reply.status, status, `${cell}: ${reply.text}`);
        t.is(reply.body?.code, code, cell);
      }
    });
  }
}

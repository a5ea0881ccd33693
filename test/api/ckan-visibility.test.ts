import test from 'ava';
import { startTestAppWithPeople, type TestApp } from '../helpers/app.ts';
import { as, type Auth, type TestUser } from '../helpers/client.ts';
import { ckanGet, ckanPost, resultNames, resultOf } from '../helpers/ckan.ts';
import { CATEGORIES, createGroup, groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';

/**
 * The spec's visibility rule through every CKAN action (issue 17 §1): drafts never appear, deleted
 * datasets never, private ones only for members of their organization (and sysadmins), and in search
 * only with include_private=true. The expectations are written from the spec, per actor and subject.
 */

const ACTORS = ['anonymous', 'outsider', 'orgMember', 'orgEditor', 'sysadmin'] as const;
type ActorKey = (typeof ACTORS)[number];
const SUBJECTS = ['public', 'private', 'orgDraft', 'ownDraft', 'deleted'] as const;
type SubjectKey = (typeof SUBJECTS)[number];

const NAME: Record<SubjectKey, string> = {
  public: 'cv-public',
  private: 'cv-private',
  orgDraft: 'cv-org-draft',
  ownDraft: 'cv-own-draft',
  deleted: 'cv-deleted',
};
const TAG: Record<SubjectKey, string> = {
  public: 'cv-tag-public',
  private: 'cv-tag-private',
  orgDraft: 'cv-tag-orgdraft',
  ownDraft: 'cv-tag-owndraft',
  deleted: 'cv-tag-deleted',
};

/** Who may read each subject through the CKAN API at all (package_show, resource_show, datastore_search). */
const SEES: Record<SubjectKey, readonly ActorKey[]> = {
  public: ACTORS,
  private: ['orgMember', 'orgEditor', 'sysadmin'],
  orgDraft: [],
  ownDraft: [],
  deleted: [],
};

let app: TestApp;
const auth = {} as Record<ActorKey, Auth>;
const resourceOf = {} as Record<SubjectKey, string>;

test.before(async (t) => {
  const started = await startTestAppWithPeople('ckvis', ['outsider', 'orgMember', 'orgEditor']);
  app = started.app;
  const people: Record<string, TestUser> = started.people;
  auth.anonymous = {};
  auth.outsider = as(people.outsider);
  auth.orgMember = as(people.orgMember);
  auth.orgEditor = as(people.orgEditor);
  auth.sysadmin = app.sysadmin;
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'cv-org' }, { member: people.orgMember, editor: people.orgEditor });
  await createGroup(t, app, CATEGORIES, { name: 'cv-cat' });
  const fields = (subject: SubjectKey) => ({
    name: NAME[subject],
    tags: [TAG[subject]],
    groups: ['cv-cat'] as string[] | undefined,
  });
  const withResource = async (subject: SubjectKey, datasetId: string, by: Auth) => {
    const added = await app.api.post(`/api/v1/packages/${datasetId}/resources`, { urlType: 'upload', name: 'rows.csv', format: 'CSV' }, by);
    t.is(added.status, 201, added.text);
    resourceOf[subject] = added.body.id;
    await uploadAndProcess(app.api, added.body.id, 'a,b\n1,x\n2,y\n', by);
  };
  for (const subject of ['public', 'private', 'deleted'] as const) {
    const created = await app.api.post(
      '/api/v1/packages',
      { ...fields(subject), ownerOrg: 'cv-org', licenseId: 'cc-by', private: subject === 'private' },
      app.sysadmin,
    );
    t.is(created.status, 201, created.text);
    await withResource(subject, created.body.id, app.sysadmin);
  }
  t.is((await app.api.delete(`/api/v1/packages/${NAME.deleted}`, app.sysadmin)).status, 204);
  // The organization's draft is in the category too (adding to a category takes the sysadmin here).
  const orgDraft = await app.api.post(
    '/api/v1/packages/drafts',
    { ...fields('orgDraft'), ownerOrg: 'cv-org', licenseId: 'cc-by' },
    app.sysadmin,
  );
  t.is(orgDraft.status, 201, orgDraft.text);
  await withResource('orgDraft', orgDraft.body.id, auth.orgEditor);
  const ownDraft = await app.api.post('/api/v1/packages/drafts', { ...fields('ownDraft'), groups: undefined }, auth.outsider);
  t.is(ownDraft.status, 201, ownDraft.text);
  await withResource('ownDraft', ownDraft.body.id, auth.outsider);
});
test.after.always(async () => app?.stop());

const ours = (names: string[]) => names.filter((n) => n.startsWith('cv-')).sort();
const expectedNames = (subjects: readonly SubjectKey[]) => subjects.map((s) => NAME[s]).sort();

for (const actor of ACTORS) {
  const sees = SUBJECTS.filter((s) => SEES[s].includes(actor));
  const seesPublicOnly = sees.filter((s) => s === 'public');

  test(`${actor}: package_search lists public datasets only by default, private ones with include_private=true, never drafts or deleted`, async (t) => {
    t.deepEqual(ours(resultNames(await ckanGet(app.api, 'package_search', { rows: 1000 }, auth[actor]))), expectedNames(seesPublicOnly));
    const withPrivate = await ckanPost(app.api, 'package_search', { rows: 1000, include_private: true }, auth[actor]);
    t.deepEqual(ours(resultNames(withPrivate)), expectedNames(sees));
    t.is(resultOf(withPrivate).count, sees.length, 'the count agrees');
    const drafts = await ckanGet(app.api, 'package_search', { include_private: 'true', include_drafts: 'true', q: 'cv' }, auth[actor]);
    t.deepEqual(ours(resultNames(drafts)), expectedNames(sees), 'include_drafts does not bring drafts');
  });

  test(`${actor}: package_search by name, tag or facet never reveals a dataset it may not see`, async (t) => {
    for (const subject of SUBJECTS) {
      const byName = await ckanGet(app.api, 'package_search', { fq: `name:${NAME[subject]}`, include_private: 'true' }, auth[actor]);
      t.is(resultOf(byName).count, sees.includes(subject) ? 1 : 0, `${subject} by name`);
      const byTag = await ckanGet(app.api, 'package_search', { fq: `tags:${TAG[subject]}`, include_private: 'true' }, auth[actor]);
      t.is(resultOf(byTag).count, sees.includes(subject) ? 1 : 0, `${subject} by tag`);
    }
    const facets = resultOf(
      await ckanGet(app.api, 'package_search', { 'facet.field': '["tags","organization"]', include_private: 'true', rows: 0 }, auth[actor]),
    ).facets;
    t.deepEqual(
      Object.keys(facets.tags)
        .filter((tag) => tag.startsWith('cv-'))
        .sort(),
      sees.map((s) => TAG[s]).sort(),
    );
    t.is(facets.organization['cv-org'] ?? 0, sees.filter((s) => s === 'public' || s === 'private').length);
  });

  test(`${actor}: package_show, resource_show and datastore_search answer only for what it may see, else 404`, async (t) => {
    for (const subject of SUBJECTS) {
      const visible = sees.includes(subject);
      const show = await ckanGet(app.api, 'package_show', { id: NAME[subject] }, auth[actor]);
      t.is(show.status, visible ? 200 : 404, `package_show ${subject}`);
      if (!visible) t.is(show.body.error.__type, 'Not Found Error');
      const resource = await ckanGet(app.api, 'resource_show', { id: resourceOf[subject] }, auth[actor]);
      t.is(resource.status, visible ? 200 : 404, `resource_show ${subject}`);
      const rows = await ckanPost(app.api, 'datastore_search', { resource_id: resourceOf[subject] }, auth[actor]);
      t.is(rows.status, visible ? 200 : 404, `datastore_search ${subject}: ${rows.text}`);
    }
  });

  test(`${actor}: package_list lists public active datasets only`, async (t) => {
    t.deepEqual(ours(resultOf(await ckanGet(app.api, 'package_list', {}, auth[actor]))), [NAME.public]);
  });

  test(`${actor}: organization and group counts and dataset lists count only what it may see`, async (t) => {
    const visibleActive = sees.filter((s) => s === 'public' || s === 'private');
    for (const action of ['organization_show', 'group_show']) {
      const id = action === 'organization_show' ? 'cv-org' : 'cv-cat';
      const shown = resultOf(await ckanGet(app.api, action, { id, include_datasets: 'true' }, auth[actor]));
      t.is(shown.package_count, visibleActive.length, `${action} package_count`);
      t.deepEqual(shown.packages.map((p: { name: string }) => p.name).sort(), expectedNames(visibleActive), `${action} packages`);
    }
    const [org] = resultOf(await ckanGet(app.api, 'organization_list', { all_fields: 'true' }, auth[actor]));
    t.is(org.package_count, visibleActive.length);
  });

  test(`${actor}: tag_list names only tags of active datasets it may see`, async (t) => {
    const tags = resultOf(await ckanGet(app.api, 'tag_list', {}, auth[actor])).filter((tag: string) => tag.startsWith('cv-'));
    t.deepEqual(tags.sort(), sees.map((s) => TAG[s]).sort());
  });
}

test('the drafts’ and the deleted dataset’s names never appear in any answer to anyone', async (t) => {
  const hidden = [NAME.orgDraft, NAME.ownDraft, NAME.deleted, TAG.orgDraft, TAG.ownDraft, TAG.deleted];
  for (const actor of ACTORS) {
    for (const [action, params] of [
      ['package_search', { rows: '1000', include_private: 'true' }],
      ['package_list', {}],
      ['tag_list', {}],
      ['organization_show', { id: 'cv-org', include_datasets: 'true' }],
      ['group_show', { id: 'cv-cat', include_datasets: 'true' }],
    ] as const) {
      const reply = await ckanGet(app.api, action, params, auth[actor]);
      t.is(reply.status, 200);
      for (const name of hidden) t.false(reply.text.includes(name), `${actor} ${action} reveals ${name}`);
    }
  }
});

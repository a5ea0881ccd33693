import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestAppWithPeople, type TestApp } from '../helpers/app.ts';
import { as, type Auth } from '../helpers/client.ts';
import { ckanGet, ckanPost } from '../helpers/ckan.ts';
import { groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';

/**
 * The visibility rule through every DataStore action (issue 29 §2): a resource of a private dataset is
 * a table only for members of its organization and sysadmins, a draft's or a deleted dataset's for
 * nobody; for everyone else it is missing exactly as a resource that never existed is, in
 * datastore_search, datastore_info and datastore_search_sql alike (CKAN told them apart: ckan#652).
 */

const ACTORS = ['anonymous', 'outsider', 'otherOrgMember', 'orgMember', 'sysadmin'] as const;
type ActorKey = (typeof ACTORS)[number];
const SUBJECTS = ['public', 'private', 'orgDraft', 'deleted'] as const;
type SubjectKey = (typeof SUBJECTS)[number];

const SEES: Record<SubjectKey, readonly ActorKey[]> = {
  public: ACTORS,
  private: ['orgMember', 'sysadmin'],
  orgDraft: [],
  deleted: [],
};

let app: TestApp;
const auth = {} as Record<ActorKey, Auth>;
const resourceOf = {} as Record<SubjectKey, string>;

test.before(async (t) => {
  const started = await startTestAppWithPeople('dsvis', ['outsider', 'otherOrgMember', 'orgMember']);
  app = started.app;
  auth.anonymous = {};
  auth.outsider = as(started.people.outsider);
  auth.otherOrgMember = as(started.people.otherOrgMember);
  auth.orgMember = as(started.people.orgMember);
  auth.sysadmin = app.sysadmin;
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'dsv-org' }, { member: started.people.orgMember });
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'dsv-other' }, { member: started.people.otherOrgMember });
  const add = async (subject: SubjectKey, datasetId: string) => {
    const added = await app.api.post(`/api/v1/packages/${datasetId}/resources`, { urlType: 'upload', name: 'rows.csv' }, app.sysadmin);
    t.is(added.status, 201, added.text);
    resourceOf[subject] = added.body.id;
    await uploadAndProcess(app.api, added.body.id, `a,b\n1,${subject}\n2,y\n`, app.sysadmin);
  };
  for (const subject of ['public', 'private', 'deleted'] as const) {
    const created = await app.api.post(
      '/api/v1/packages',
      { name: `dsv-${subject}`, ownerOrg: 'dsv-org', licenseId: 'cc-by', private: subject === 'private' },
      app.sysadmin,
    );
    t.is(created.status, 201, created.text);
    await add(subject, created.body.id);
  }
  t.is((await app.api.delete('/api/v1/packages/dsv-deleted', app.sysadmin)).status, 204);
  const draft = await app.api.post(
    '/api/v1/packages/drafts',
    { name: 'dsv-org-draft', ownerOrg: 'dsv-org', licenseId: 'cc-by' },
    app.sysadmin,
  );
  t.is(draft.status, 201, draft.text);
  await add('orgDraft', draft.body.id);
});
test.after.always(async () => app?.stop());

/** The error body with the resource id the caller wrote taken out (a message may repeat the caller's SQL back). */
const withoutId = (body: unknown, id: string) => JSON.parse(JSON.stringify(body).replaceAll(id, '<id>'));

for (const actor of ACTORS) {
  test.serial(
    `${actor}: every DataStore action answers for what it may see, and for the rest exactly as for a resource that does not exist`,
    async (t) => {
      const by = auth[actor];
      const nowhere = randomUUID();
      const missing = {
        search: await ckanPost(app.api, 'datastore_search', { resource_id: nowhere }, by),
        info: await ckanGet(app.api, 'datastore_info', { id: nowhere }, by),
        sql: await ckanPost(app.api, 'datastore_search_sql', { sql: `SELECT * FROM "${nowhere}"` }, by),
        join: await ckanPost(
          app.api,
          'datastore_search_sql',
          { sql: `SELECT * FROM "${resourceOf.public}" p JOIN "${nowhere}" s USING (a)` },
          by,
        ),
      };
      t.is(missing.search.status, 404);
      t.is(missing.info.status, 404);
      t.is(missing.sql.status, 409);
      t.is(missing.join.status, 409);
      for (const subject of SUBJECTS) {
        const id = resourceOf[subject];
        const visible = SEES[subject].includes(actor);
        const search = await ckanPost(app.api, 'datastore_search', { resource_id: id, filters: { b: subject } }, by);
        const info = await ckanGet(app.api, 'datastore_info', { id }, by);
        const sql = await ckanPost(app.api, 'datastore_search_sql', { sql: `SELECT b FROM "${id}" WHERE a = 1` }, by);
        const join = await ckanPost(
          app.api,
          'datastore_search_sql',
          { sql: `SELECT * FROM "${resourceOf.public}" p JOIN "${id}" s USING (a)` },
          by,
        );
        if (visible) {
          t.is(search.status, 200, `${subject} search: ${search.text}`);
          t.deepEqual(search.body.result.records, [{ _id: 1, a: 1, b: subject }]);
          t.is(info.status, 200, `${subject} info: ${info.text}`);
          t.is(info.body.result.meta.count, 2);
          t.is(sql.status, 200, `${subject} sql: ${sql.text}`);
          t.deepEqual(sql.body.result.records, [{ b: subject }]);
          t.is(join.status, 200, `${subject} join: ${join.text}`);
          t.is(join.body.result.records.length, 2);
        } else {
          t.deepEqual(withoutId(search.body, id), withoutId(missing.search.body, nowhere), `${subject} search`);
          t.is(search.status, 404);
          t.deepEqual(withoutId(info.body, id), withoutId(missing.info.body, nowhere), `${subject} info`);
          t.is(info.status, 404);
          t.deepEqual(withoutId(sql.body, id), withoutId(missing.sql.body, nowhere), `${subject} sql`);
          t.is(sql.status, 409);
          t.deepEqual(withoutId(join.body, id), withoutId(missing.join.body, nowhere), `${subject} join`);
          t.is(join.status, 409);
        }
      }
    },
  );
}

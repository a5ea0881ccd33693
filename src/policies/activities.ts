import type { Actor } from '../domain/actor.ts';
import { recordPolicyConsulted } from './audit.ts';
import { canReadDataset, type DatasetSubject, type OrgRoles } from './datasets.ts';
import { hasRole } from './roles.ts';

/**
 * History through time: an activity of a dataset is shown to those who may see the dataset now *and*
 * could see it as it was then (the read rule over the activity's own state, privacy, creator and
 * organization, with the reader's role there today). A draft period stays with its editors; a private
 * period stays with the organization after the dataset goes public. A purged dataset is no one's to see
 * now but a sysadmin's. Two forms that must agree, as for datasets: a predicate and an SQL filter.
 */
export function canReadDatasetActivity(a: Actor, now: DatasetSubject | null, then: DatasetSubject): boolean {
  recordPolicyConsulted();
  if (a.sysadmin) return true;
  return now !== null && canReadDataset(a, now) && canReadDataset(a, then);
}

/** The columns one side (now or then) of the rule reads, as SQL over the statement's aliases. */
interface SubjectColumns {
  present: string;
  state: string;
  private: string;
  creator: string;
  org: string;
  orgDeleted: string;
}

/** canReadDataset as SQL over one side's columns; the parameters follow the SQL's `?` in order. */
function readableSql(a: Actor, roles: OrgRoles, c: SubjectColumns): { sql: string; params: unknown[] } {
  const memberOf = [...roles.keys()];
  const editorOf = [...roles].filter(([, role]) => hasRole(role, 'editor')).map(([id]) => id);
  const inList = (ids: string[]) => (ids.length ? `${c.org} in (${ids.map(() => '?::uuid').join(', ')})` : 'false');
  return {
    sql: `(${c.present} and not ${c.orgDeleted} and (
      (${c.state} = 'active' and (not ${c.private} or ${inList(memberOf)}))
      or (${c.state} = 'draft' and (${a.userId ? `${c.creator} = ?::uuid` : 'false'} or ${inList(editorOf)}))
      or (${c.state} = 'deleted' and ${inList(editorOf)})))`,
    params: [...memberOf, ...(a.userId ? [a.userId] : []), ...editorOf, ...editorOf],
  };
}

/**
 * canReadDatasetActivity as a filter over `activities a` joined to the dataset now (`datasets d` and its
 * organization `o`, both left joins). Activities of organizations and categories: while the group is
 * active now and was then, for everyone, but for a change of its members alone, which is for those who may
 * read its members (`group:read-members`: its members); sysadmins see all.
 */
export function visibleActivitiesSql(a: Actor, roles: OrgRoles): { sql: string; params: unknown[] } {
  recordPolicyConsulted();
  if (a.sysadmin) return { sql: 'true', params: [] };
  const now = readableSql(a, roles, {
    present: 'd.id is not null',
    state: 'd.state',
    private: 'd.private',
    creator: 'd.creator_id',
    org: 'd.owner_org_id',
    orgDeleted: "coalesce(o.state = 'deleted', false)",
  });
  const then = readableSql(a, roles, {
    present: 'true',
    state: 'a.state',
    private: 'a.private',
    creator: 'a.creator_id',
    org: 'a.organization_id',
    orgDeleted: 'a.org_deleted',
  });
  const memberOfGroup = a.userId ? 'exists (select 1 from memberships m where m.group_id = a.object_id and m.user_id = ?::uuid)' : 'false';
  return {
    sql: `((a.object_type = 'dataset' and ${now.sql} and ${then.sql})
       or (a.object_type <> 'dataset' and a.state = 'active' and exists (select 1 from groups g where g.id = a.object_id and g.state = 'active')
           and (not a.members_only or ${memberOfGroup})))`,
    params: [...now.params, ...then.params, ...(a.userId ? [a.userId] : [])],
  };
}

import type { Actor } from '../../../domain/actor.ts';
import type { DomainContext } from '../../../domain/context.ts';
import { memberRoster, type RosterEntry } from '../../../domain/groups/member-sets.ts';
import { groupDict, type GroupFacts } from '../package-dict.ts';

/** A member in a group dict's `users`, as CKAN's user_list_dictize with capacity: public fields only. */
const memberDict = (m: RosterEntry) => ({
  id: m.userId,
  name: m.username,
  fullname: m.displayName,
  display_name: m.displayName ?? m.username,
  capacity: m.role,
  state: 'active',
});

/**
 * organization_show's and group_show's dict, which the write actions answer with too. `users` only for
 * callers who may read the members (members and sysadmins), and then whole: a dict without the key
 * leaves the members alone when written back (ckanapi load), where an empty list would remove them all.
 */
export async function fullGroupDict(
  domain: DomainContext,
  actor: Actor,
  kind: 'organization' | 'category',
  group: GroupFacts & { packageCount: number },
  opts: { includeUsers: boolean },
) {
  const roster = opts.includeUsers ? await memberRoster(domain, actor, kind, group.id) : null;
  return {
    ...groupDict(group, kind),
    extras: [],
    tags: [],
    groups: [],
    num_followers: 0,
    ...(roster ? { users: roster.map(memberDict) } : {}),
  };
}

import { User } from '../../entities/index.ts';
import { authorize, can } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { presentUser, presentUserSummary } from './present.ts';

/**
 * One user by id or username, for signed-in callers as the user search is (CKAN's user_show with
 * public user details off): the public face to anyone signed in; email and the sysadmin flag only to
 * the user and sysadmins. A deleted account is a sysadmin's to see.
 */
export async function showUser(ctx: DomainContext, actor: Actor, nameOrId: string) {
  authorize(actor, 'user:search');
  const user = await ctx.em.findOne(User, isUuid(nameOrId) ? { id: nameOrId } : { username: nameOrId });
  if (!user || (user.state !== 'active' && !actor.sysadmin)) throw notFound('User');
  const own = can(actor, 'user:read-private', { ownerId: user.id });
  const record = own ? presentUser(user, { withEmail: true }) : { ...presentUserSummary(user), state: user.state };
  return { record, createdAt: user.createdAt, own };
}

import test from 'ava';
import { anonymous, type Actor } from '../../src/domain/actor.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { MemberRole } from '../../src/entities/index.ts';
import { authorize, can, hasRole, type Action } from '../../src/policies/index.ts';

const user: Actor = { userId: 'u1', sysadmin: false };
const sysadmin: Actor = { userId: 'root', sysadmin: true };
const group = (role: MemberRole | null, state: 'active' | 'deleted' = 'active') => ({ role, state });

test('roles rank member < editor < admin', (t) => {
  t.true(hasRole('admin', 'editor'));
  t.true(hasRole('editor', 'editor'));
  t.false(hasRole('member', 'editor'));
  t.false(hasRole(null, 'member'));
});

test('anyone reads an active group; only sysadmins read a deleted one', (t) => {
  t.true(can(anonymous, 'group:read', group(null)));
  t.false(can(user, 'group:read', group('admin', 'deleted')));
  t.true(can(sysadmin, 'group:read', group(null, 'deleted')));
});

const groupRules: Array<[Action, MemberRole | null, boolean]> = [
  ['group:update', 'admin', true],
  ['group:update', 'editor', false],
  ['group:delete', 'admin', true],
  ['group:delete', 'member', false],
  ['group:read-members', 'member', true],
  ['group:read-members', null, false],
  ['group:manage-members', 'admin', true],
  ['group:manage-members', 'editor', false],
];
for (const [action, role, expected] of groupRules) {
  test(`${action} for a ${role ?? 'non-member'} is ${expected ? 'allowed' : 'refused'}`, (t) => {
    t.is(can(user, action as 'group:update', group(role)), expected);
    t.true(can(sysadmin, action as 'group:update', group(null)));
  });
}

test('create, restore and purge of groups are for sysadmins only, whatever the role', (t) => {
  for (const action of ['group:create', 'group:restore', 'group:purge', 'group:list-deleted'] as const) {
    t.false(can(user, action), action);
    t.true(can(sysadmin, action), action);
  }
});

test('tokens are managed by their owner only, sysadmin included', (t) => {
  t.true(can(user, 'token:manage', { ownerId: 'u1' }));
  t.false(can(sysadmin, 'token:manage', { ownerId: 'u1' }));
});

test('authorize throws 401 for anonymous and 403 for a signed-in caller', (t) => {
  const anon = t.throws(() => authorize(anonymous, 'user:administer'), { instanceOf: DomainError });
  t.is(anon?.status, 401);
  const signedIn = t.throws(() => authorize(user, 'user:administer'), { instanceOf: DomainError });
  t.is(signedIn?.status, 403);
  t.notThrows(() => authorize(sysadmin, 'user:administer'));
});

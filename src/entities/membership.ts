import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Group } from './group.ts';
import { User } from './user.ts';

export const MEMBER_ROLES: ['member', 'editor', 'admin'] = ['member', 'editor', 'admin'];
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    group: () => p.manyToOne(Group).primary().deleteRule('cascade'),
    user: () => p.manyToOne(User).primary().deleteRule('cascade').index(),
    role: p.enum(MEMBER_ROLES),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Membership = InferEntity<typeof Membership>;

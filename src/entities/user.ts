import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { baseProperties, RECORD_STATES } from './base.ts';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    ...baseProperties,
    username: p.string().length(100).unique(),
    email: p.string().length(320).unique(),
    displayName: p.string().length(200).nullable(),
    passwordHash: p.string().length(300).hidden(),
    sysadmin: p.boolean().default(false),
    state: p.enum(RECORD_STATES).default('active'),
    deletedAt: p.datetime().nullable(),
  },
});
export type User = InferEntity<typeof User>;

import { p } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';

/** Columns every uuid-keyed record shares. */
export const baseProperties = {
  id: p
    .uuid()
    .primary()
    .onCreate(() => randomUUID()),
  createdAt: p.datetime().onCreate(() => new Date()),
  updatedAt: p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date()),
};

export const RECORD_STATES: ['active', 'deleted'] = ['active', 'deleted'];
export type RecordState = (typeof RECORD_STATES)[number];

/**
 * The values of baseProperties' onCreate, which the unit of work's flush computes, for a record inserted
 * without it (`em.insert`).
 */
export function stampNew<T extends { id: string; createdAt: Date; updatedAt: Date }>(entity: T, now = new Date()): T {
  entity.id ??= randomUUID();
  entity.createdAt ??= now;
  entity.updatedAt ??= now;
  return entity;
}

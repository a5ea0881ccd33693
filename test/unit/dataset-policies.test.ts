import test from 'ava';
import { anonymous, type Actor } from '../../src/domain/actor.ts';
import type { DatasetState, MemberRole } from '../../src/entities/index.ts';
import { canEditDataset, canReadDataset, type DatasetSubject } from '../../src/policies/datasets.ts';

const creator: Actor = { userId: 'creator', sysadmin: false };
const someone: Actor = { userId: 'someone', sysadmin: false };
const sysadmin: Actor = { userId: 'root', sysadmin: true };
const subject = (state: DatasetState, orgRole: MemberRole | null, isPrivate = false, orgDeleted = false): DatasetSubject => ({
  state,
  private: isPrivate,
  creatorId: 'creator',
  orgRole,
  orgDeleted,
});

test('a public active dataset is for everyone; a private one for org members and sysadmins', (t) => {
  t.true(canReadDataset(anonymous, subject('active', null)));
  t.false(canReadDataset(anonymous, subject('active', null, true)));
  t.false(canReadDataset(creator, subject('active', null, true)), 'having created it is not enough once private');
  t.true(canReadDataset(someone, subject('active', 'member', true)));
  t.true(canReadDataset(sysadmin, subject('active', null, true)));
});

test('a draft is for its creator, org editors and admins, and sysadmins', (t) => {
  t.true(canReadDataset(creator, subject('draft', null)));
  t.false(canReadDataset(someone, subject('draft', 'member')));
  t.true(canReadDataset(someone, subject('draft', 'editor')));
  t.true(canReadDataset(someone, subject('draft', 'admin')));
  t.false(canReadDataset(anonymous, subject('draft', null)));
  t.true(canReadDataset(sysadmin, subject('draft', null)));
});

test('a deleted dataset is for org editors and admins, and sysadmins', (t) => {
  t.false(canReadDataset(creator, subject('deleted', null)));
  t.false(canReadDataset(someone, subject('deleted', 'member')));
  t.true(canReadDataset(someone, subject('deleted', 'editor')));
  t.true(canReadDataset(sysadmin, subject('deleted', null)));
});

test('editing: org editors always; a creator only while it is a draft', (t) => {
  t.true(canEditDataset(creator, subject('draft', null)));
  t.false(canEditDataset(creator, subject('active', null)));
  t.true(canEditDataset(someone, subject('active', 'editor')));
  t.false(canEditDataset(someone, subject('active', 'member')));
  t.false(canEditDataset(anonymous, subject('draft', null)));
});

test('datasets of a soft-deleted organization are for sysadmins only, whatever their state', (t) => {
  for (const state of ['active', 'draft', 'deleted'] as const) {
    t.false(canReadDataset(anonymous, subject(state, null, false, true)), state);
    t.false(canReadDataset(creator, subject(state, 'admin', false, true)), state);
    t.true(canReadDataset(sysadmin, subject(state, null, true, true)), state);
  }
});

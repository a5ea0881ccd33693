import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { baseProperties } from './base.ts';
import { HarvestSource } from './harvest-source.ts';

export const HARVEST_RUN_STATUSES: ['running', 'succeeded', 'failed'] = ['running', 'succeeded', 'failed'];
export type HarvestRunStatus = (typeof HARVEST_RUN_STATUSES)[number];

/** One run of a harvest source's workflow: its Temporal ids, its state and, when it failed, why. */
export const HarvestRun = defineEntity({
  name: 'HarvestRun',
  tableName: 'harvest_runs',
  indexes: [{ properties: ['source', 'startedAt'] }],
  properties: {
    ...baseProperties,
    source: () => p.manyToOne(HarvestSource).deleteRule('cascade'),
    workflowId: p.string().length(200),
    /** The Temporal run that started it (a continue-as-new chain keeps this first one). */
    runId: p.string().length(200).unique(),
    status: p.enum(HARVEST_RUN_STATUSES),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
    /** For incremental runs: only records modified at the source since then were asked for. */
    since: p.datetime().nullable(),
    /** The source's pages read so far. */
    pages: p.integer().default(0),
    /** Why a failed run failed, in a sentence an operator can act on. */
    reason: p.string().length(1000).nullable(),
  },
});
export type HarvestRun = InferEntity<typeof HarvestRun>;

export const HARVEST_OUTCOMES: ['created', 'updated', 'unchanged', 'failed', 'removed'] = [
  'created',
  'updated',
  'unchanged',
  'failed',
  'removed',
];
export type HarvestOutcome = (typeof HARVEST_OUTCOMES)[number];

/**
 * What a run did with one remote record. Written in the same transaction as the dataset it describes,
 * and keyed by (run, remote id): a page replayed after a crash finds the record done and counts it once.
 * A run's counts are these rows, grouped by outcome.
 */
export const HarvestRunRecord = defineEntity({
  name: 'HarvestRunRecord',
  tableName: 'harvest_run_records',
  properties: {
    run: () => p.manyToOne(HarvestRun).primary().deleteRule('cascade'),
    remoteId: p.string().length(1000).primary(),
    outcome: p.enum(HARVEST_OUTCOMES),
    /** The dataset it created, updated or removed (null when it failed before there was one). */
    datasetId: p.uuid().nullable(),
    title: p.string().length(1000).nullable(),
    /** Why it failed: invalid, too big, refused by a rule. */
    reason: p.string().length(1000).nullable(),
    at: p.datetime().onCreate(() => new Date()),
    /** The run's page that first brought it: a later page bringing only such records is the source going round. */
    page: p.integer().nullable(),
  },
});
export type HarvestRunRecord = InferEntity<typeof HarvestRunRecord>;

/**
 * The pages a run has asked for, by a digest of the reader's cursor (the page's URL, a CKAN `start`): a run
 * asking again for a page it read before, under another number, is going round in the source's paging.
 */
export const HarvestRunPage = defineEntity({
  name: 'HarvestRunPage',
  tableName: 'harvest_run_pages',
  properties: {
    run: () => p.manyToOne(HarvestRun).primary().deleteRule('cascade'),
    cursorDigest: p.string().length(64).primary(),
    page: p.integer(),
  },
});
export type HarvestRunPage = InferEntity<typeof HarvestRunPage>;

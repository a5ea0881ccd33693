import { randomUUID } from 'node:crypto';
import { IsolationLevel, UniqueConstraintViolationException } from '@mikro-orm/core';
import { Dataset, Group, HarvestRun, HarvestSource, type HarvestSourceType } from '../../entities/index.ts';
import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { conflict, notFound, validationFailed, type FieldError } from '../errors.ts';
import { byNameOrId, isUuid } from '../ids.ts';
import type { HarvestSchedule, JobStart } from '../jobs/port.ts';
import { page, type PageRequest } from '../pagination.ts';
import { beginHarvestRun } from './run-lifecycle.ts';
import { harvestRunCounts } from './runs.ts';
import { sourceConfigErrors, type SourceDefaults, type SourceFilters } from './source-filters.ts';

/**
 * Harvest sources (issue 18), sysadmin only: the records behind `/admin/harvest-sources`, their Temporal
 * Schedules, and the start of a run (`harvest-<id>`, a run already going is joined).
 */

export interface HarvestSourceInput {
  name: string;
  type: HarvestSourceType;
  url: string;
  /** Name or id of the organization that receives the datasets. */
  organization?: string | null;
  deleteRemoved?: boolean;
  schedule?: string | null;
  /** The run's caps: past them it stops, failed, saying so (src/domain/harvest/run-guards.ts). */
  maxPages?: number;
  maxRunMinutes?: number;
  /** DCAT-US sources: datasets left out, and values for empty fields (src/domain/harvest/source-filters.ts). */
  filters?: SourceFilters;
  defaults?: SourceDefaults;
}

/** `daily` and `weekly` as cron expressions (UTC, at night). */
const NAMED_SCHEDULES: Record<string, string> = { daily: '0 2 * * *', weekly: '0 2 * * 1' };
const CRON_FIELDS: Array<[string, number, number]> = [
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['day of month', 1, 31],
  ['month', 1, 12],
  ['day of week', 0, 7],
];
const CRON_PART = /^(\*|(\d{1,2})(?:-(\d{1,2}))?)(?:\/(\d{1,2}))?$/;

/**
 * `daily`, `weekly`, or a five-field cron expression (numbers, `*`, ranges, lists, steps) → the cron
 * expression of the Temporal Schedule; a field error otherwise.
 */
export function scheduleCron(schedule: string): { cron: string } | { error: string } {
  const named = NAMED_SCHEDULES[schedule.trim().toLowerCase()];
  if (named) return { cron: named };
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5)
    return { error: 'must be "daily", "weekly" or a cron expression of five fields (minute hour day month weekday)' };
  for (const [i, field] of fields.entries()) {
    const [label, min, max] = CRON_FIELDS[i]!;
    for (const part of field.split(',')) {
      const m = CRON_PART.exec(part);
      const numbers = m ? [m[2], m[3]].filter((n) => n !== undefined).map(Number) : [];
      const step = m?.[4] === undefined ? 1 : Number(m[4]);
      if (!m || numbers.some((n) => n < min || n > max) || (numbers.length === 2 && numbers[0]! > numbers[1]!) || step < 1) {
        return { error: `has an invalid ${label} field "${field}" (${min}-${max}, *, ranges, lists and /steps)` };
      }
    }
  }
  return { cron: fields.join(' ') };
}

function harvestSchedule(schedule: string | null): HarvestSchedule | null {
  if (schedule === null) return null;
  const parsed = scheduleCron(schedule);
  if ('error' in parsed) throw validationFailed([{ path: 'schedule', message: parsed.error }]);
  return parsed;
}

const nameTaken = () => conflict('A harvest source with this name already exists.', [{ path: 'name', message: 'is already taken' }]);

/** The record's fields checked together: a reachable scheme, an organization where the type needs one. */
async function resolveFields(ctx: DomainContext, input: HarvestSourceInput) {
  const errors: FieldError[] = [];
  let url: URL | null = null;
  try {
    url = new URL(input.url);
  } catch {
    /* reported below */
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) errors.push({ path: 'url', message: 'must be an http(s) URL' });
  let organization: Group | null = null;
  if (input.organization) {
    organization = await ctx.em.findOne(Group, { kind: 'organization', state: 'active', ...byNameOrId(input.organization) });
    if (!organization) errors.push({ path: 'organization', message: 'no active organization has this name or id' });
  } else if (input.type !== 'ckan') {
    errors.push({ path: 'organization', message: `is required for ${input.type} sources: the organization that receives the datasets` });
  }
  if (input.schedule !== undefined && input.schedule !== null) {
    const parsed = scheduleCron(input.schedule);
    if ('error' in parsed) errors.push({ path: 'schedule', message: parsed.error });
  }
  errors.push(...sourceConfigErrors(input.type, input.filters ?? {}, input.defaults ?? {}));
  if (errors.length) throw validationFailed(errors);
  return { organization };
}

async function loadSource(ctx: DomainContext, id: string) {
  const source = isUuid(id) ? await ctx.em.findOne(HarvestSource, { id }, { populate: ['organization'] }) : null;
  if (!source) throw notFound('The harvest source');
  return source;
}

/**
 * Brings the Temporal Schedule in line first, then saves the source: a schedule Temporal refused leaves
 * the record unchanged, and a record that cannot be saved takes its new schedule back.
 */
async function saveWithSchedule(ctx: DomainContext, source: HarvestSource, schedule: { changed: boolean; before: string | null }) {
  if (schedule.changed) await ctx.jobs.setHarvestSchedule(source.id, harvestSchedule(source.schedule ?? null));
  try {
    await ctx.em.flush();
  } catch (err) {
    if (schedule.changed) await ctx.jobs.setHarvestSchedule(source.id, harvestSchedule(schedule.before)).catch(() => undefined);
    if (err instanceof UniqueConstraintViolationException) throw nameTaken();
    throw err;
  }
}

export async function createHarvestSource(ctx: DomainContext, actor: Actor, input: HarvestSourceInput) {
  authorize(actor, 'harvest:administer');
  const { organization } = await resolveFields(ctx, input);
  if (await ctx.em.count(HarvestSource, { name: input.name })) throw nameTaken();
  const source = ctx.em.create(HarvestSource, {
    // Known before the flush: the schedule is named after it and made first.
    id: randomUUID(),
    name: input.name,
    type: input.type,
    url: input.url,
    organization,
    deleteRemoved: input.deleteRemoved ?? false,
    schedule: input.schedule ?? null,
    ...(input.maxPages !== undefined && { maxPages: input.maxPages }),
    ...(input.maxRunMinutes !== undefined && { maxRunMinutes: input.maxRunMinutes }),
    filters: input.filters ?? {},
    defaults: input.defaults ?? {},
  });
  await saveWithSchedule(ctx, source, { changed: source.schedule !== null, before: null });
  return presentHarvestSource(ctx, source);
}

/** PUT: the fields given replace the source's; the rest stay. A changed schedule changes its Temporal Schedule. */
export async function updateHarvestSource(ctx: DomainContext, actor: Actor, id: string, input: Partial<HarvestSourceInput>) {
  authorize(actor, 'harvest:administer');
  const source = await loadSource(ctx, id);
  const merged: HarvestSourceInput = {
    name: input.name ?? source.name,
    type: input.type ?? source.type,
    url: input.url ?? source.url,
    organization: input.organization !== undefined ? input.organization : (source.organization?.id ?? null),
    deleteRemoved: input.deleteRemoved ?? source.deleteRemoved,
    schedule: input.schedule !== undefined ? input.schedule : (source.schedule ?? null),
    maxPages: input.maxPages ?? source.maxPages,
    maxRunMinutes: input.maxRunMinutes ?? source.maxRunMinutes,
    filters: input.filters ?? source.filters,
    defaults: input.defaults ?? source.defaults,
  };
  const { organization } = await resolveFields(ctx, merged);
  if (merged.name !== source.name && (await ctx.em.count(HarvestSource, { name: merged.name }))) throw nameTaken();
  const before = source.schedule ?? null;
  Object.assign(source, {
    name: merged.name,
    type: merged.type,
    url: merged.url,
    organization,
    deleteRemoved: merged.deleteRemoved,
    schedule: merged.schedule,
    maxPages: merged.maxPages,
    maxRunMinutes: merged.maxRunMinutes,
    filters: merged.filters,
    defaults: merged.defaults,
  });
  await saveWithSchedule(ctx, source, { changed: merged.schedule !== before, before });
  return presentHarvestSource(ctx, source);
}

export async function getHarvestSource(ctx: DomainContext, actor: Actor, id: string) {
  authorize(actor, 'harvest:administer');
  return presentHarvestSource(ctx, await loadSource(ctx, id));
}

export async function listHarvestSources(ctx: DomainContext, actor: Actor, req: PageRequest) {
  authorize(actor, 'harvest:administer');
  // One snapshot for the page and its count: a source added meanwhile is in both or in neither.
  const [rows, count] = await ctx.em.transactional(
    (em) =>
      em.findAndCount(HarvestSource, {}, { orderBy: { name: 'asc' }, offset: req.offset, limit: req.limit, populate: ['organization'] }),
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
  const results = [];
  for (const source of rows) results.push(await presentHarvestSource(ctx, source));
  return page(results, count, req);
}

/** GET /{id}/runs: every run of the source, newest first. */
export async function listHarvestRuns(ctx: DomainContext, actor: Actor, id: string, req: PageRequest) {
  authorize(actor, 'harvest:administer');
  const source = await loadSource(ctx, id);
  const [rows, count] = await ctx.em.transactional(
    (em) =>
      em.findAndCount(
        HarvestRun,
        { source: source.id },
        { orderBy: { startedAt: 'desc', id: 'desc' }, offset: req.offset, limit: req.limit },
      ),
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
  const results = [];
  for (const run of rows) results.push(await presentHarvestRun(ctx, run));
  return page(results, count, req);
}

/** How many datasets a purge removes at once. */
const PURGE_CONCURRENCY = 4;

/**
 * DELETE: the source, its schedule, its runs still going (terminated) and its runs' rows go. The datasets it brought stay, detached (editable by
 * hand from then on), unless `purge`: then each is soft-deleted and purged the way a dataset's purge
 * does it (`purge-dataset-<id>`), before the source goes.
 */
export async function deleteHarvestSource(ctx: DomainContext, actor: Actor, id: string, opts: { purge: boolean }) {
  authorize(actor, 'harvest:administer');
  const source = await loadSource(ctx, id);
  await ctx.jobs.setHarvestSchedule(source.id, null);
  // A run still going would keep bringing records (after the purge, too): it ends first.
  await ctx.jobs.stopHarvest(source.id);
  if (opts.purge) {
    const now = new Date();
    await ctx.em.transactional((tx) =>
      tx.nativeUpdate(Dataset, { harvestSource: source.id, state: { $ne: 'deleted' } }, { state: 'deleted', deletedAt: now }),
    );
    const rows: Array<{ id: string }> = await ctx.em.find(Dataset, { harvestSource: source.id }, { fields: ['id'] });
    const queue = rows.map((r) => r.id);
    await Promise.all(
      Array.from({ length: PURGE_CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await ctx.jobs.purgeDataset(next, actor.userId);
      }),
    );
  }
  await ctx.em.nativeDelete(HarvestSource, { id: source.id });
}

/**
 * POST /{id}/run: starts `harvest-<id>` (`full`: read everything, also from a CKAN source that could answer
 * only what changed), or joins the run already going; its row exists when this returns.
 */
export async function runHarvestSource(ctx: DomainContext, actor: Actor, id: string, opts: { full?: boolean } = {}): Promise<JobStart> {
  authorize(actor, 'harvest:administer');
  const source = await loadSource(ctx, id);
  let start = await ctx.jobs.startHarvest(source.id, { full: opts.full ?? false });
  // A run whose row has ended but whose workflow is still closing is no run to join: wait for it to close.
  for (let wait = 0; wait < 50 && (await endedRow(ctx, start.runId)); wait++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    start = await ctx.jobs.startHarvest(source.id, { full: opts.full ?? false });
  }
  if (start.joined) {
    // A run chain keeps the run id of its first run (continue-as-new gives later runs new ones).
    const row = await ctx.em.findOne(HarvestRun, { source: source.id, workflowId: start.workflowId, status: 'running' });
    if (row) return { workflowId: start.workflowId, runId: row.runId, uiUrl: start.uiUrl };
  }
  await beginHarvestRun(ctx.em.fork(), source.id, start.workflowId, start.runId, { full: opts.full ?? false });
  return { workflowId: start.workflowId, runId: start.runId, uiUrl: start.uiUrl };
}

const endedRow = async (ctx: DomainContext, runId: string) =>
  (await ctx.em.fork().count(HarvestRun, { runId, status: { $ne: 'running' } })) > 0;

// -- presentation

/** A run as `lastRun` and `/runs` show it; its counts are its per-record rows, so they move while it runs. */
export async function presentHarvestRun(ctx: DomainContext, run: HarvestRun) {
  const { errors, ...counts } = await harvestRunCounts(ctx, run.id);
  return {
    workflowId: run.workflowId,
    runId: run.runId,
    status: run.status,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    reason: run.reason ?? null,
    since: run.since?.toISOString() ?? null,
    pages: run.pages,
    ...counts,
    errors: errors.map((e) => ({ remoteId: e.remoteId, title: e.title, reason: e.reason ?? '' })),
  };
}

export async function presentHarvestSource(ctx: DomainContext, source: HarvestSource) {
  const org = source.organization ? await ctx.em.findOne(Group, { id: source.organization.id }) : null;
  const last = await ctx.em.findOne(HarvestRun, { source: source.id }, { orderBy: { startedAt: 'desc', id: 'desc' } });
  return {
    id: source.id,
    name: source.name,
    type: source.type,
    url: source.url,
    organization: org ? { id: org.id, name: org.name, title: org.title } : null,
    deleteRemoved: source.deleteRemoved,
    schedule: source.schedule ?? null,
    maxPages: source.maxPages,
    maxRunMinutes: source.maxRunMinutes,
    filters: source.filters,
    defaults: source.defaults,
    createdAt: source.createdAt.toISOString(),
    updatedAt: source.updatedAt.toISOString(),
    lastRun: last ? await presentHarvestRun(ctx, last) : null,
  };
}

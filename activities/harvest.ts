import { ApplicationFailure, Context } from '@temporalio/activity';
import pino from 'pino';
import { HarvestRun, HarvestSource } from '../src/entities/index.ts';
import type { DomainContext } from '../src/domain/context.ts';
import { applyHarvestPage, finishHarvestRun } from '../src/domain/harvest/apply.ts';
import { announceRunVectors } from '../src/domain/harvest/runs.ts';
import { actAs } from '../src/domain/activity/actor-scope.ts';
import { beginHarvestRun, endHarvestRun, recordRunPages, type BegunRun } from '../src/domain/harvest/run-lifecycle.ts';
import { checkPageBringsNew, checkRunCaps, claimRunPage, HarvestCapReached, markPageRecords } from '../src/domain/harvest/run-guards.ts';
import type { HarvestCursor } from '../src/domain/harvest/record.ts';
import { SourceInvalid } from '../src/domain/harvest/errors.ts';
import { sourceHostOnly, sourceReader } from '../src/harvest/readers/index.ts';
import { beating } from './heartbeat.ts';
import type { ActivityServices } from './services.ts';

const noLog = pino({ enabled: false });

/** The deadline of each request to the source. */
const SOURCE_TIMEOUT_MS = 60_000;

/**
 * The harvest's activities: the run's row, one page read and applied, the end. Each is safe to repeat:
 * the row is keyed by the run id, each record by (run, remote id), pages only go up.
 */
export function harvestActivities({ orm, storage, config, search, jobs, log }: ActivityServices) {
  const domain = (): DomainContext => {
    if (!jobs) throw ApplicationFailure.nonRetryable('This worker was started without the jobs client a harvest needs.');
    return { em: orm.em.fork(), config, log: log ?? noLog, jobs, storage, search };
  };
  /** The source and the run's row, or null when either is gone (the source was deleted mid-run). */
  const load = async (ctx: DomainContext, run: BegunRun) => {
    const source = await ctx.em.findOne(HarvestSource, { id: run.sourceId });
    const row = await ctx.em.findOne(HarvestRun, { id: run.runRowId });
    return source && row ? { source, row } : null;
  };
  return {
    beginHarvestRun(sourceId: string, workflowId: string, runId: string, full: boolean): Promise<BegunRun | null> {
      return beating(() => beginHarvestRun(orm.em.fork(), sourceId, workflowId, runId, { full }));
    },
    /** Reads the page at `cursor` and applies each of its items; the run's pages become at least `pageNo`. */
    async harvestPage(run: BegunRun, cursor: HarvestCursor | null, pageNo: number, pageSize: number | null) {
      const ctx = domain();
      const loaded = await load(ctx, run);
      if (!loaded) {
        // The source was deleted mid-run: what its earlier pages brought and kept still gets its vectors.
        await announceRunVectors(ctx);
        return { next: null, gone: true };
      }
      const { source, row } = loaded;
      const activity = Context.current();
      return beating(async () => {
        const reader = sourceReader(source.type, source.url, {
          pageSize: pageSize ?? undefined,
          allowPrivateNetworks: sourceHostOnly(source.url),
          filters: source.filters,
          defaults: source.defaults,
        });
        try {
          checkRunCaps(source, row, pageNo);
        } catch (err) {
          if (err instanceof HarvestCapReached)
            throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
          throw err;
        }
        await claimRunPage(ctx.em, run.runRowId, cursor, pageNo);
        const page = await reader.readPage(cursor, { since: run.since ? new Date(run.since) : null, timeoutMs: SOURCE_TIMEOUT_MS });
        await checkPageBringsNew(ctx.em, run.runRowId, pageNo, page.items);
        // A terminated or cancelled run reaches this activity through its heartbeats, as the signal.
        // The datasets' activities name this run as who changed them.
        const em = orm.em.fork();
        actAs(em, { harvestRunId: run.runRowId });
        await applyHarvestPage({ ...ctx, em }, source, row, page.items, {
          onApplied: () => activity.heartbeat(),
          signal: activity.cancellationSignal,
        });
        await markPageRecords(ctx.em, run.runRowId, pageNo);
        await recordRunPages(ctx.em, run.runRowId, pageNo);
        return { next: page.next, gone: false };
      });
    },
    /** Marks what a full run no longer found, and the run succeeded. */
    finishHarvestRun(run: BegunRun): Promise<{ removed: number }> {
      return beating(async () => {
        const ctx = domain();
        const loaded = await load(ctx, run);
        if (!loaded) return { removed: 0 };
        actAs(ctx.em, { harvestRunId: run.runRowId });
        const result = await finishHarvestRun(ctx, loaded.source, loaded.row, { full: run.full }).catch((err: unknown) => {
          if (err instanceof SourceInvalid)
            throw ApplicationFailure.create({ type: 'SourceInvalid', message: err.message, nonRetryable: true });
          throw err;
        });
        await endHarvestRun(ctx.em, run.runRowId, { status: 'succeeded' });
        return result;
      });
    },
    failHarvestRun(runRowId: string, reason: string): Promise<void> {
      return beating(async () => {
        await endHarvestRun(orm.em.fork(), runRowId, { status: 'failed', reason });
        // What the run brought before it failed stays, and is embedded like a finished run's.
        await announceRunVectors(domain());
      });
    },
  };
}

import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Actor } from '../domain/actor.ts';
import { forkContext, type DomainContext } from '../domain/context.ts';
import { createHarvestSource, presentHarvestRun, runHarvestSource } from '../domain/harvest/sources.ts';
import { buildServices } from '../runtime/services.ts';
import { StopStack } from '../runtime/stop-stack.ts';
import { HARVEST_SOURCE_TYPES, HarvestRun, HarvestSource, type HarvestSourceType } from '../entities/index.ts';

/**
 * `almanac harvest <url> --type … [--org …] [--name …]`: creates the source (or reuses the one with this
 * URL and type), runs it on the deployment's workers through Temporal, shows its counts as they move,
 * and ends with the summary and the run in the Temporal UI. Exit code 1 when the run failed.
 */

export interface HarvestCommand {
  url: string;
  type: HarvestSourceType;
  org?: string;
  name?: string;
  /** Read everything, also from a CKAN source that could answer only what changed since its last run. */
  full?: boolean;
}

/** The CLI acts as the operator at the machine: a sysadmin. */
const OPERATOR: Actor = Object.freeze({ userId: null, sysadmin: true });
const POLL_MS = 1_000;

export function parseHarvestType(type: string | undefined): HarvestSourceType {
  if (!type || !(HARVEST_SOURCE_TYPES as string[]).includes(type)) {
    throw new Error(`--type must be one of ${HARVEST_SOURCE_TYPES.join(', ')}`);
  }
  return type as HarvestSourceType;
}

/** A source name from its URL: `data.example.org/data.json` → `data-example-org-data-json`. */
export function sourceNameOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'harvest-source';
  }
  const slug = `${parsed.host}${parsed.pathname}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return (slug || 'harvest-source').slice(0, 100);
}

type Run = Awaited<ReturnType<typeof presentHarvestRun>>;

const countsLine = (run: Run) =>
  `pages ${run.pages} · seen ${run.seen} · created ${run.created} · updated ${run.updated} · unchanged ${run.unchanged} · failed ${run.failed}` +
  (run.removed ? ` · removed ${run.removed}` : '');

/** A bar that moves while the run goes: a source does not say its total before it has been read, so it shows activity, not a percentage. */
function progressBar(tick: number) {
  const width = 20;
  const pos = tick % (width * 2);
  const at = pos < width ? pos : width * 2 - pos - 1;
  return `[${' '.repeat(at)}=${' '.repeat(width - at - 1)}]`;
}

export async function harvestCommand(
  ctx: DomainContext,
  command: HarvestCommand,
  out: { write(text: string): void; isTTY?: boolean },
  log: Logger,
): Promise<{ ok: boolean }> {
  const existing = await ctx.em.findOne(HarvestSource, { url: command.url, type: command.type });
  let sourceId: string;
  if (existing) {
    sourceId = existing.id;
    out.write(`reusing harvest source ${existing.name} (${existing.id})\n`);
  } else {
    const created = await createHarvestSource(ctx, OPERATOR, {
      name: command.name ?? sourceNameOf(command.url),
      type: command.type,
      url: command.url,
      organization: command.org ?? null,
    });
    sourceId = created.id;
    out.write(`created harvest source ${created.name} (${created.id})\n`);
  }
  const start = await runHarvestSource(ctx, OPERATOR, sourceId, { full: command.full ?? false });
  const runUrl = `${start.uiUrl}/${encodeURIComponent(start.runId)}/history`;
  out.write(`harvest ${start.workflowId} run ${start.runId}\n`);

  // Its own run, by its row: another run of the source (its schedule's) may begin meanwhile.
  let last = '';
  for (let tick = 0; ; tick++) {
    ctx.em.clear();
    const row = await ctx.em.findOne(HarvestRun, { runId: start.runId });
    const run = row ? await presentHarvestRun(ctx, row) : null;
    if (run) {
      const line = countsLine(run);
      if (out.isTTY) out.write(`\r${progressBar(tick)} ${line}\x1b[K`);
      else if (line !== last) out.write(`${line}\n`);
      last = line;
      if (run.status !== 'running') {
        if (out.isTTY) out.write('\n');
        out.write(summary(run, runUrl));
        return { ok: run.status === 'succeeded' };
      }
    }
    if (tick % 5 === 4 && !(await ctx.jobs.isHarvestRunning(start.workflowId))) {
      // Ended in Temporal: its row says how, unless it ended without saying so (terminated).
      ctx.em.clear();
      const ended = await ctx.em.findOne(HarvestRun, { runId: start.runId });
      if (!ended || ended.status === 'running') {
        if (out.isTTY) out.write('\n');
        out.write(
          `harvest ${start.workflowId} run ${start.runId} is no longer running in Temporal and did not finish (terminated?): ${runUrl}\n`,
        );
        return { ok: false };
      }
      log.debug({ runId: start.runId }, 'the run ended: reading its row');
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function summary(run: Run, runUrl: string) {
  const seconds = run.finishedAt ? (Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 1000 : null;
  const lines = [
    `${run.status === 'succeeded' ? 'harvest succeeded' : 'harvest FAILED'}${seconds === null ? '' : ` in ${seconds.toFixed(1)} s`}` +
      `${run.since ? ` (incremental, records modified since ${run.since})` : ' (full run)'}`,
    `  ${countsLine(run)}`,
  ];
  if (run.reason) lines.push(`  reason: ${run.reason}`);
  if (run.errors.length) {
    lines.push(`  records that failed (first ${Math.min(run.errors.length, 10)} of ${run.failed}):`);
    for (const e of run.errors.slice(0, 10)) lines.push(`    ${e.remoteId}${e.title ? ` "${e.title}"` : ''}: ${e.reason}`);
  }
  lines.push(`  Temporal UI: ${runUrl}`);
  return `${lines.join('\n')}\n`;
}

/** Runs the command over the deployment's services (database, Temporal, store), then stops them. */
export async function runHarvestCli(config: Config, log: Logger, command: HarvestCommand): Promise<{ ok: boolean }> {
  const stack = new StopStack(log);
  try {
    const services = await buildServices(config, log, stack, { role: 'command' });
    return await harvestCommand(forkContext(services), command, process.stdout, log);
  } finally {
    await stack.stop();
  }
}

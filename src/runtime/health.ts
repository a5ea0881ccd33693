import type { DomainServices } from '../domain/context.ts';

type ComponentStatus = 'ok' | 'down';

/** How long each component has to answer. */
const PROBE_MS = 3000;

/**
 * The service's own health, one entry per component. The database is essential (down without it);
 * any other component down leaves the service degraded (search without vectors or a model is keyword-only).
 */
export async function checkHealth(services: Pick<DomainServices, 'orm' | 'jobs' | 'storage' | 'search'>) {
  const settle = (p: Promise<boolean>) =>
    withTimeout(p, PROBE_MS).then(
      (ok): ComponentStatus => (ok ? 'ok' : 'down'),
      (): ComponentStatus => 'down',
    );
  const { embeddings: model, vectors: index } = services.search;
  const [database, temporal, storage, vectors, embeddings] = await Promise.all([
    settle(databaseAnswers(services.orm)),
    settle(services.jobs.isReachable()),
    settle(services.storage.isHealthy()),
    settle(index.healthy()),
    // EMBEDDINGS_PROVIDER=none: search is keyword-only by choice, which is down for this component.
    settle(model ? model.healthy() : Promise.resolve(false)),
  ]);
  const components = { database, temporal, storage, vectors, embeddings };
  // Embeddings turned off (EMBEDDINGS_PROVIDER=none) is a choice, shown as down but not a degradation.
  const counted = Object.entries(components).filter(([name]) => name !== 'embeddings' || model !== null);
  const status = database === 'down' ? 'down' : counted.every(([, c]) => c === 'ok') ? 'ok' : 'degraded';
  return { status, components } as const;
}

/** When the pool last had a query answered, per ORM. */
const answerClocks = new WeakMap<DomainServices['orm'], { at: number }>();

function answerClock(orm: DomainServices['orm']) {
  let clock = answerClocks.get(orm);
  if (!clock) {
    const entry = { at: 0 };
    orm.em.getKnex().on('query-response', () => (entry.at = performance.now()));
    answerClocks.set(orm, (clock = entry));
  }
  return clock;
}

/**
 * The probe's own query; when that is still waiting for a connection at its deadline, the pool's other
 * queries: a pool that every request is using is busy, not down, as long as they are being answered.
 * A closed pool says at once that it is not connected.
 */
async function databaseAnswers(orm: DomainServices['orm']): Promise<boolean> {
  const clock = answerClock(orm);
  const asked = performance.now();
  return withTimeout(orm.isConnected(), PROBE_MS - 250).catch(() => clock.at > asked);
}

/** How long a health report is answered again before the components are asked anew. */
export const HEALTH_MAX_AGE_MS = 250;

/**
 * checkHealth behind a short memory: requests arriving within HEALTH_MAX_AGE_MS of a report get it, and
 * those arriving while a check runs join it. The endpoint is public and each check asks five backends, so
 * without this every caller (load balancers, probes, anyone) would multiply the load on all of them.
 */
export function healthReporter(services: Pick<DomainServices, 'orm' | 'jobs' | 'storage' | 'search'>) {
  let last: { at: number; report: Promise<Awaited<ReturnType<typeof checkHealth>>> } | null = null;
  return () => {
    const now = performance.now();
    if (!last || now - last.at > HEALTH_MAX_AGE_MS) {
      const report = checkHealth(services);
      const entry = { at: Number.POSITIVE_INFINITY, report };
      // Fresh from when it is answered, so a slow check (a backend timing out) is not asked again at once.
      const answered = () => (entry.at = performance.now());
      report.then(answered, answered);
      last = entry;
    }
    return last.report;
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ms);
    }),
  ]);
}

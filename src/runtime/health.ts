import type { DomainServices } from '../domain/context.ts';

type ComponentStatus = 'ok' | 'down';

/**
 * The service's own health, one entry per component. The database is essential (down without it);
 * any other component down leaves the service degraded (search without vectors or a model is keyword-only).
 */
export async function checkHealth(services: Pick<DomainServices, 'orm' | 'jobs' | 'storage' | 'search'>) {
  const settle = (p: Promise<boolean>) =>
    withTimeout(p, 3000).then(
      (ok): ComponentStatus => (ok ? 'ok' : 'down'),
      (): ComponentStatus => 'down',
    );
  const { embeddings: model, vectors: index } = services.search;
  const [database, temporal, storage, vectors, embeddings] = await Promise.all([
    settle(services.orm.isConnected()),
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

import type { Services } from '../services.ts';

type ComponentStatus = 'ok' | 'down';

/**
 * The service's own health, one entry per component. The database is essential (down without it);
 * any other component down leaves the service degraded (search without vectors or a model is keyword-only).
 */
export async function checkHealth(services: Pick<Services, 'orm' | 'jobs' | 'storage' | 'search'>) {
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

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ms);
    }),
  ]);
}

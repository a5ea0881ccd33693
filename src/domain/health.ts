import type { Services } from '../services.ts';

type ComponentStatus = 'ok' | 'down';

/**
 * The service's own health, one entry per component. The database is essential (down without it);
 * any other component down leaves the service degraded. Vectors and embeddings join with search.
 */
export async function checkHealth(services: Pick<Services, 'orm' | 'workflows' | 'storage'>) {
  const settle = (p: Promise<boolean>) =>
    withTimeout(p, 3000).then(
      (ok): ComponentStatus => (ok ? 'ok' : 'down'),
      (): ComponentStatus => 'down',
    );
  const [database, temporal, storage] = await Promise.all([
    settle(services.orm.isConnected()),
    settle(services.workflows.isReachable()),
    settle(services.storage.isHealthy()),
  ]);
  const components = { database, temporal, storage };
  const status = database === 'down' ? 'down' : Object.values(components).every((c) => c === 'ok') ? 'ok' : 'degraded';
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

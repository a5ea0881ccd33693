/**
 * Clients looping through the balancer for a while (searches, dataset reads, CKAN reads, MCP calls and
 * dataset creations), with a fault injected part-way; every request is recorded with when it was sent and
 * answered, so a test can tell the requests in flight at the fault from the rest.
 */
import type { Cluster } from './cluster.ts';

export interface Outcome {
  route: string;
  /** Sent as X-Request-Id: the balancer's log line and the API process's show it. */
  id: string;
  /** ms on performance.now()'s clock */
  started: number;
  ended: number;
  /** 0: no answer (the connection failed) */
  status: number;
  /** The dataset a creation asked for. */
  name?: string;
  error?: string;
}

const WORDS = ['tide', 'gauge', 'readings', 'glacier', 'rivers', 'stations', 'budget', 'energy'];

export async function runSoak(
  cluster: Cluster,
  opts: { clients: number; seconds: number; killAfterMs: number; kill: () => Promise<void> },
): Promise<{ outcomes: Outcome[]; killedAt: number; goneAt: number }> {
  const outcomes: Outcome[] = [];
  const start = performance.now();
  const end = start + opts.seconds * 1000;
  const auth = { Authorization: `Bearer ${cluster.adminToken}` };

  let sent = 0;
  const call = async (route: string, url: string, init: RequestInit = {}, name?: string) => {
    const id = `soak-${++sent}`;
    const started = performance.now();
    try {
      const reply = await fetch(`${cluster.url}${url}`, { ...init, headers: { ...init.headers, 'X-Request-Id': id } });
      await reply.arrayBuffer();
      outcomes.push({ route, id, started, ended: performance.now(), status: reply.status, name });
    } catch (err) {
      outcomes.push({ route, id, started, ended: performance.now(), status: 0, name, error: String((err as Error).cause ?? err) });
    }
  };

  const client = async (c: number) => {
    for (let n = 0; performance.now() < end; n++) {
      const word = WORDS[(c + n) % WORDS.length]!;
      const pick = (c * 7 + n * 13) % 10;
      if (pick < 3) await call('search', `/api/v1/packages?q=${word}&semantic=false&limit=5`);
      else if (pick < 5) await call('read', '/api/v1/packages/tide-gauges');
      else if (pick < 6) await call('ckan', '/api/3/action/package_show?id=tide-gauges');
      else if (pick < 7)
        await call('mcp', '/api/mcp', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'search_datasets', arguments: { q: word } },
          }),
        });
      else {
        const name = `soak-${c}-${n}`;
        await call(
          'create',
          '/api/v1/packages',
          {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: JSON.stringify({
              name,
              title: `Soak ${word} ${c}.${n}`,
              ownerOrg: 'faults',
              licenseId: 'cc-by-4.0',
              tags: [word],
              resources: [{ urlType: 'upload', name: `${name}.csv`, format: 'CSV' }],
            }),
          },
          name,
        );
      }
    }
  };

  let killedAt = Number.POSITIVE_INFINITY;
  let goneAt = Number.POSITIVE_INFINITY;
  const fault = (async () => {
    await new Promise((r) => setTimeout(r, opts.killAfterMs));
    killedAt = performance.now();
    await opts.kill();
    goneAt = performance.now();
  })();
  await Promise.all([fault, ...Array.from({ length: opts.clients }, (_, c) => client(c))]);
  return { outcomes, killedAt, goneAt };
}

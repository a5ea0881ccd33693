/**
 * A query on an old data version against the same query on the current one (issue 30: "a query on an old
 * version costs the same"). The bench CSV is uploaded twice, so version 1 and version 2 hold previews of
 * the same rows; the five shapes of bench/query.ts run alternately through POST /resources/{id}/query
 * (the current version) and POST /resources/{id}/versions/1/query, p50 of 20 runs each.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { withBenchPreview } from './preview-bench.ts';
import { QUERY_SHAPES } from './query.ts';

const RUNS = 20;
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchVersionQuery() {
  return withBenchPreview('bench-version-query', async ({ base, headers, id, engines }) => {
    const uploaded = await fetch(`${base}/resources/${id}/upload`, {
      method: 'POST',
      headers: { Authorization: headers.Authorization, 'Content-Type': 'text/csv' },
      body: await fsp.readFile(path.join(engines.dir, 'bench.csv')),
    });
    if (!uploaded.ok) throw new Error(`second upload: ${uploaded.status}`);
    for (let status = ''; status !== 'succeeded';) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await (await fetch(`${base}/resources/${id}/pipeline-status`)).json()).status;
      if (status === 'failed') throw new Error('pipeline failed');
    }
    const versions = (await (await fetch(`${base}/resources/${id}/versions`, { headers })).json()).results as Array<{
      version: number;
      current: boolean;
    }>;
    if (versions.map((v) => `${v.version}:${v.current}`).join() !== '2:true,1:false')
      throw new Error(`versions: ${JSON.stringify(versions)}`);

    const run = async (url: string, sql: string) => {
      const t = performance.now();
      const reply = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ sql }) });
      const body = await reply.json();
      if (!reply.ok) throw new Error(`${url}: ${reply.status} ${JSON.stringify(body)}`);
      return performance.now() - t;
    };
    const results: Record<string, { oldP50Ms: number; currentP50Ms: number; ratio: number }> = {};
    for (const [shape, sql] of Object.entries(QUERY_SHAPES)) {
      const old: number[] = [];
      const current: number[] = [];
      for (let i = 0; i <= RUNS; i++) {
        // Alternated, and idle between queries as in bench/query.ts; the first of each fetches its preview into the local cache.
        const [a, b] = i % 2 ? ['old', 'current'] : ['current', 'old'];
        const times: Record<string, number> = {};
        for (const which of [a, b]) {
          times[which] = await run(which === 'old' ? `${base}/resources/${id}/versions/1/query` : `${base}/resources/${id}/query`, sql);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        if (i === 0) continue;
        old.push(times.old!);
        current.push(times.current!);
      }
      results[shape] = {
        oldP50Ms: +p50(old).toFixed(1),
        currentP50Ms: +p50(current).toFixed(1),
        ratio: +(p50(old) / p50(current)).toFixed(2),
      };
      console.log(
        `ratio version-query-${shape}: ${results[shape].ratio} (almanac version 1 p50 ${results[shape].oldP50Ms} ms, baseline current version p50 ${results[shape].currentP50Ms} ms)`,
      );
    }
    return { runs: RUNS, shapes: results };
  });
}

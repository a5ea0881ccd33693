/**
 * The query sandbox end to end: on the preview of a 50 MB CSV (built from the real CSVs), five query
 * shapes through POST /resources/{id}/query against the same SQL in raw DuckDB on the same Parquet file,
 * in the same run. Figure: p50 of 20 runs each, and the ratio; and the floor every query stands on, an
 * authenticated GET of the resource's schema.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { withBenchPreview } from './preview-bench.ts';

const RUNS = 20;
/** `data` is the table in both places; the columns are the congress file's. */
export const QUERY_SHAPES: Record<string, string> = {
  count: 'SELECT count(*) AS n FROM data',
  filteredScan: "SELECT * FROM data WHERE state_abbrev = 'CA' AND age_years > 60 LIMIT 1000",
  groupBy: 'SELECT party_code, count(*) AS n, avg(age_years) AS age FROM data GROUP BY party_code ORDER BY n DESC',
  topK: 'SELECT bioname, age_years FROM data ORDER BY age_years DESC LIMIT 10',
  window:
    'SELECT bioname, congress, age_years, rank() OVER (PARTITION BY congress ORDER BY age_years DESC) AS r FROM data QUALIFY r <= 3 LIMIT 500',
};

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchQuery() {
  return withBenchPreview('bench-query', async ({ base, headers, id, parquet }) => {
    const duck = await DuckDBInstance.create(':memory:');
    const conn = await duck.connect();
    await conn.run(`CREATE VIEW data AS SELECT * FROM read_parquet('${parquet}')`);

    const results: Record<string, { apiP50Ms: number; rawP50Ms: number; ratio: number; rows: number }> = {};
    for (const [shape, sql] of Object.entries(QUERY_SHAPES)) {
      const api: number[] = [];
      const raw: number[] = [];
      let rows = 0;
      for (let i = 0; i <= RUNS; i++) {
        let t = performance.now();
        const reply = await fetch(`${base}/resources/${id}/query`, { method: 'POST', headers, body: JSON.stringify({ sql }) });
        const body = await reply.json();
        if (!reply.ok) throw new Error(`${shape}: ${reply.status} ${JSON.stringify(body)}`);
        const apiMs = performance.now() - t;
        // Idle between runs, as between a person's queries: the service starts its next spare DuckDB
        // instance after each query, and that should not land on the baseline's clock.
        await new Promise((resolve) => setTimeout(resolve, 50));
        t = performance.now();
        const reader = await conn.runAndReadAll(sql);
        reader.getRowObjectsJson();
        const rawMs = performance.now() - t;
        if (i === 0) continue; // warm-up: the first query also fetches the preview into the local cache
        api.push(apiMs);
        raw.push(rawMs);
        rows = body.rowCount;
      }
      results[shape] = { apiP50Ms: +p50(api).toFixed(1), rawP50Ms: +p50(raw).toFixed(1), ratio: +(p50(api) / p50(raw)).toFixed(2), rows };
      console.log(
        `ratio query-${shape}: ${results[shape].ratio} (almanac p50 ${results[shape].apiP50Ms} ms, baseline raw DuckDB ${results[shape].rawP50Ms} ms)`,
      );
    }
    conn.closeSync();
    // The floor under every query: an authenticated request that loads the resource and checks its
    // visibility (GET /schema), without DuckDB.
    const floor: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const t = performance.now();
      await (await fetch(`${base}/resources/${id}/schema`, { headers })).json();
      if (i > 0) floor.push(performance.now() - t);
    }
    const previewRows = (await (await fetch(`${base}/resources/${id}/schema`)).json()).schema.rowCount;
    return { previewRows, runs: RUNS, requestFloorP50Ms: +p50(floor).toFixed(1), shapes: results };
  });
}

/**
 * The DataStore on the preview of a 50 MB CSV (bench/query.ts's file): datastore_search with a filter
 * and a sort against the same question asked of raw DuckDB on the same Parquet file (the page and its
 * total, one statement), in the same run, p50 of 20 runs each; target ≤ 1.5× DuckDB + 5 ms. Then
 * paging: a deep page by `_links.next`'s cursor and by offset alone against the first page.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { withBenchPreview } from './preview-bench.ts';

const RUNS = 20;
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (ms: number) => +ms.toFixed(1);

export async function benchDatastore() {
  return withBenchPreview('bench-datastore', async ({ almanac, headers, id, parquet }) => {
    const duck = await DuckDBInstance.create(':memory:');
    const conn = await duck.connect();
    await conn.run(`CREATE VIEW data AS SELECT * FROM read_parquet('${parquet}')`);

    const action = async (params: Record<string, unknown>) => {
      const t = performance.now();
      const reply = await fetch(`${almanac.url}/api/3/action/datastore_search`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ resource_id: id, ...params }),
      });
      const body = await reply.json();
      if (!reply.ok) throw new Error(`datastore_search: ${reply.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - t, result: body.result };
    };
    const get = async (link: string) => {
      const t = performance.now();
      const reply = await fetch(`${almanac.url}${link}`, { headers });
      const body = await reply.json();
      if (!reply.ok) throw new Error(`${link}: ${reply.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - t, result: body.result };
    };
    const pause = () => new Promise((r) => setTimeout(r, 50));

    // A filter and a sort, the page and its total (datastore_search's default include_total).
    const search = { filters: { state_abbrev: 'CA' }, sort: 'age_years desc', limit: 100 };
    const rawSql =
      "SELECT *, (SELECT count(*) FROM data WHERE state_abbrev = 'CA') AS total FROM data WHERE state_abbrev = 'CA' ORDER BY age_years DESC NULLS FIRST LIMIT 100";
    const api: number[] = [];
    const raw: number[] = [];
    let rows = 0;
    let total = 0;
    for (let i = 0; i <= RUNS; i++) {
      const answer = await action(search);
      await pause();
      const t = performance.now();
      (await conn.runAndReadAll(rawSql)).getRowObjectsJson();
      const rawMs = performance.now() - t;
      await pause();
      if (i === 0) continue; // warm-up: the first query also fetches the preview into the local cache
      api.push(answer.ms);
      raw.push(rawMs);
      rows = answer.result.records.length;
      total = answer.result.total;
    }
    const ratio = p50(api) / p50(raw);
    const target = 1.5 * p50(raw) + 5;
    console.log(
      `ratio datastore-search: ${ratio.toFixed(2)} (almanac p50 ${round(p50(api))} ms, baseline raw DuckDB p50 ${round(p50(raw))} ms; target ≤ 1.5× + 5 ms = ${round(target)} ms: ${p50(api) <= target ? 'met' : 'NOT met'})`,
    );

    // Paging a filter in `_id` order: the first page, a deep one by the cursor `_links.next` carries, the same by offset alone.
    const filter = { filters: { state_abbrev: 'CA' }, limit: 100 };
    const deepOffset = Math.max(0, total - 200);
    const before = await action({ ...filter, offset: deepOffset - 100 });
    const first: number[] = [];
    const byCursor: number[] = [];
    const byOffset: number[] = [];
    const unfilteredFirst: number[] = [];
    const unfilteredDeep: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const a = await action(filter);
      await pause();
      const b = await get(before.result._links.next);
      await pause();
      const c = await action({ ...filter, offset: deepOffset });
      await pause();
      const d = await action({ limit: 100 });
      await pause();
      const e = await action({ limit: 100, offset: 460_000 });
      await pause();
      if (JSON.stringify(b.result.records) !== JSON.stringify(c.result.records)) throw new Error('the cursor and the offset disagree');
      if (i === 0) continue;
      first.push(a.ms);
      byCursor.push(b.ms);
      byOffset.push(c.ms);
      unfilteredFirst.push(d.ms);
      unfilteredDeep.push(e.ms);
    }
    console.log(
      `datastore-search paging (filter, _id order): first page p50 ${round(p50(first))} ms, page at offset ${deepOffset} by cursor p50 ${round(p50(byCursor))} ms, by offset alone p50 ${round(p50(byOffset))} ms; ` +
        `no filter: first page p50 ${round(p50(unfilteredFirst))} ms, offset 460000 p50 ${round(p50(unfilteredDeep))} ms`,
    );
    conn.closeSync();
    duck.closeSync();
    return {
      runs: RUNS,
      filteredRows: total,
      search: { rows, apiP50Ms: round(p50(api)), rawP50Ms: round(p50(raw)), ratio: +ratio.toFixed(2), targetMs: round(target) },
      paging: {
        deepOffset,
        firstP50Ms: round(p50(first)),
        deepByCursorP50Ms: round(p50(byCursor)),
        deepByOffsetP50Ms: round(p50(byOffset)),
        unfilteredFirstP50Ms: round(p50(unfilteredFirst)),
        unfilteredOffset460kP50Ms: round(p50(unfilteredDeep)),
      },
    };
  });
}

/**
 * The cost of the coverage filters (issue 28 §3): at `total` datasets, GET /packages?q= for the keyword
 * bench's queries with a bbox and a period, against the same searches without them. A share of the seeded
 * datasets gets a temporal and spatial coverage, spread over the years and the globe, so the filters keep
 * some of each query's hits (selective, not trivial). Figures: p50/p95 in ms, one request at a time.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { createLogger } from '../src/logger.ts';
import { seedCatalog } from './catalog-seed.ts';
import { QUERIES } from './search.ts';
import { startAppOn, startEngines } from '../test/helpers/engines.ts';
import { summary } from './percentiles.ts';

const ROUNDS = 10;
/** Datasets (in tenths) given a coverage. */
const COVERED_TENTHS = 6;
/** The Americas (a third of the boxes' centres) and 2005–2015 (a third of the periods): about a tenth of the covered datasets. */
const FILTER = 'bbox=-170,-60,-30,75&temporal_start=2005&temporal_end=2015';

/**
 * Gives 6 in 10 datasets a period (a start year 1990–2024, 1 to 6 years long, a tenth of them open-ended)
 * and a box (a few degrees wide, centred anywhere), written to the record and to the columns the filters
 * read, as a write through the API would.
 */
async function seedCoverage(em: EntityManager) {
  await em.execute(`
    with numbered as (
      select id, abs(hashtext(id::text)) as h from datasets
    ), covered as (
      select id,
        make_date(1990 + (h % 35), 1, 1) as start_day,
        (h / 35) % 6 + 1 as years,
        (h / 210) % 10 = 0 as open_end,
        ((h / 2100) % 340) - 170.0 as lon,
        ((h / 714000) % 150) - 75.0 as lat,
        1 + (h % 7) as size
      from numbered where h % 10 < ${COVERED_TENTHS}
    )
    update datasets d set
      temporal_start = c.start_day,
      temporal_end = case when c.open_end then '9999-12-31T23:59:59.999Z'::timestamptz else (c.start_day + make_interval(years => c.years::int)) - interval '1 millisecond' end,
      spatial_box = box(point(c.lon - c.size, c.lat - c.size / 2.0), point(c.lon + c.size, c.lat + c.size / 2.0)),
      metadata = jsonb_build_object(
        'temporal', jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
          'start', extract(year from c.start_day)::text,
          'end', case when c.open_end then null else (extract(year from c.start_day)::int + c.years - 1)::text end))),
        'spatial', jsonb_build_array(jsonb_build_object('bbox', jsonb_build_array(c.lon - c.size, c.lat - c.size / 2.0, c.lon + c.size, c.lat + c.size / 2.0))))
    from covered c where d.id = c.id`);
  await em.execute('analyze datasets');
  const [row] = await em.execute<Array<{ covered: number }>>(
    'select count(*)::int as covered from datasets where temporal_start is not null',
  );
  return row!.covered;
}

export async function benchCoverageSearch(total: number) {
  const log = createLogger('warn');
  const engines = await startEngines('bench-coverage', log);
  const almanac = await startAppOn(engines, { EMBEDDINGS_PROVIDER: 'none' }, log);
  const em = almanac.services.orm.em.fork();
  try {
    const seedStart = performance.now();
    await seedCatalog(em, total, almanac.services.config.search.language);
    const covered = await seedCoverage(em);
    const seedSeconds = +((performance.now() - seedStart) / 1000).toFixed(1);

    const get = async (query: string) => {
      const started = performance.now();
      const res = await fetch(`${almanac.url}/api/v1/packages?${query}`);
      const body = (await res.json()) as { count: number };
      if (!res.ok) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - started, count: body.count };
    };
    const withFilter: number[] = [];
    const without: number[] = [];
    const hits: Record<string, [number, number]> = {};
    for (const q of QUERIES) {
      const plain = `q=${encodeURIComponent(q)}`;
      // Warm-up, and each query's hits without and with the filters.
      hits[q] = [(await get(plain)).count, (await get(`${plain}&${FILTER}`)).count];
      // Alternated, so both see the same state of the caches.
      for (let i = 0; i < ROUNDS; i++) {
        without.push((await get(plain)).ms);
        withFilter.push((await get(`${plain}&${FILTER}`)).ms);
      }
    }
    const a = summary(withFilter);
    const b = summary(without);
    console.log(
      `ratio coverage-filter-p95: ${(a.p95 / b.p95).toFixed(2)} (almanac ${a.p95} ms with bbox and temporal filters, baseline ${b.p95} ms the same search without them, ${total} datasets, ${covered} with coverage)`,
    );
    return {
      datasets: total,
      covered,
      seedSeconds,
      filter: FILTER,
      withFilters: a,
      withoutFilters: b,
      p95Ratio: +(a.p95 / b.p95).toFixed(2),
      hits,
    };
  } finally {
    await engines.stop();
  }
}

/**
 * Reads against the stack's own limit (issue 19): throughput of Almanac's GET /api/v1/packages/{id}
 * (anonymous and with a token), GET /api/health and GET /api/v1/site/settings, each against a bare Koa
 * handler in the same process on the same PostgreSQL: for the dataset, one SQL statement building the same
 * dataset with its organization, tags, categories and resources as JSON; for health and settings, the
 * same body. One client (autocannon, in its own process, 8 connections) for both sides, one after the
 * other in three rounds of 3 s, in one run; each figure is the median of almanac's requests per second over
 * the median of the baseline's.
 */
import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import Koa from 'koa';
import pg from 'pg';
import { createLogger } from '../src/logger.ts';
import { benchToken, startAppOn, startEngines } from '../test/helpers/engines.ts';

const CONNECTIONS = 8;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = 3;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const autocannon = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/** Requests per second of `url` (2xx only), from a separate process so the client does not share this one's CPU. */
async function throughput(url: string, headers: Record<string, string> = {}, seconds = SECONDS): Promise<number> {
  const args = [autocannon, '-j', '-c', String(CONNECTIONS), '-d', String(seconds)];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  const child = spawn(process.execPath, [...args, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  await new Promise((resolve) => child.on('close', resolve));
  const report = JSON.parse(out) as { requests: { average: number }; non2xx: number; errors: number; '2xx': number; duration: number };
  if (report.non2xx || report.errors) throw new Error(`${url}: ${report.non2xx} non-2xx answers, ${report.errors} errors`);
  return report['2xx'] / report.duration;
}

/** The dataset as one statement: its row, organization, tags, categories and resources, as JSON. */
const DATASET_SQL = `
  select json_build_object(
    'id', d.id, 'name', d.name, 'title', d.title, 'notes', d.notes, 'licenseId', d.license_id, 'private', d.private,
    'state', d.state, 'version', d.version, 'url', d.url, 'author', d.author, 'authorEmail', d.author_email,
    'maintainer', d.maintainer, 'maintainerEmail', d.maintainer_email, 'createdAt', d.created_at, 'updatedAt', d.updated_at,
    'organization', (select json_build_object('id', o.id, 'name', o.name, 'title', o.title) from groups o where o.id = d.owner_org_id),
    'tags', coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name) order by t.name)
                        from dataset_tags dt join tags t on t.id = dt.tag_id where dt.dataset_id = d.id), '[]'),
    'groups', coalesce((select json_agg(json_build_object('id', g.id, 'name', g.name, 'title', g.title) order by g.name)
                          from dataset_groups dg join groups g on g.id = dg.group_id where dg.dataset_id = d.id), '[]'),
    'resources', coalesce((select json_agg(row_to_json(r) order by r.position) from resources r where r.dataset_id = d.id), '[]')
  ) as doc
  from datasets d where (d.id::text = $1 or d.name = $1) and d.state = 'active' and d.private = false`;

function bareKoa(pool: pg.Pool, bodies: { health: unknown; settings: unknown }): Koa {
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path === '/api/health') ctx.body = bodies.health;
    else if (ctx.path === '/api/v1/site/settings') ctx.body = bodies.settings;
    else {
      const id = ctx.path.slice('/api/v1/packages/'.length);
      const { rows } = await pool.query(DATASET_SQL, [id]);
      if (!rows[0]) ctx.status = 404;
      else ctx.body = rows[0].doc;
    }
  });
  return app;
}

async function listen(app: Koa): Promise<{ url: string; server: Server }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function benchReads() {
  const log = createLogger('warn');
  const engines = await startEngines('bench-reads', log);
  try {
    const almanac = await startAppOn(engines, { TEMPORAL_TASK_QUEUE: 'bench-reads', EMBEDDINGS_PROVIDER: 'none' }, log);
    const token = await benchToken(almanac);
    const api = `${almanac.url}/api/v1`;
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${api}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ id: string; name: string }>;
    };
    await post('/organizations', { name: 'bench-org', title: 'Bench Organization' });
    for (const name of ['economy', 'health']) await post('/groups', { name, title: name });
    const dataset = await post('/packages', {
      name: 'bench-dataset',
      title: 'Federal spending by agency',
      notes: 'Obligations and outlays by agency and month, from the monthly treasury statement. '.repeat(5),
      ownerOrg: 'bench-org',
      licenseId: 'cc-by-4.0',
      tags: ['budget', 'spending', 'treasury', 'agencies', 'monthly'],
      groups: ['economy', 'health'],
      resources: Array.from({ length: 5 }, (_, i) => ({
        url: `https://example.org/spending-${i}.csv`,
        name: `Spending ${2020 + i}`,
        format: 'CSV',
        description: `Monthly obligations of ${2020 + i}`,
      })),
    });
    const published = await fetch(`${api}/packages/${dataset.id}/publish`, { method: 'POST', headers });
    if (!published.ok) throw new Error(`publish: ${published.status} ${await published.text()}`);

    const pool = new pg.Pool({ connectionString: engines.pg.url('bench'), max: 10 });
    const health = await (await fetch(`${almanac.url}/api/health`)).json();
    const settings = await (await fetch(`${api}/site/settings`)).json();
    const bare = await listen(bareKoa(pool, { health, settings }));
    try {
      const pairs: Array<[string, string, string, Record<string, string>?]> = [
        ['get-package-anonymous', `${api}/packages/${dataset.id}`, `${bare.url}/api/v1/packages/${dataset.id}`],
        [
          'get-package-token',
          `${api}/packages/${dataset.id}`,
          `${bare.url}/api/v1/packages/${dataset.id}`,
          { Authorization: `Bearer ${token}` },
        ],
        ['health', `${almanac.url}/api/health`, `${bare.url}/api/health`],
        ['site-settings', `${api}/site/settings`, `${bare.url}/api/v1/site/settings`],
      ];
      /** Side by side in turns, the median of each: one noisy stretch of the machine does not decide. */
      const sideBySide = async (ours: string, theirs: string, auth?: Record<string, string>) => {
        await throughput(ours, auth, 1); // warm both sides
        await throughput(theirs, auth, 1);
        const ourRuns: number[] = [];
        const theirRuns: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          ourRuns.push(await throughput(ours, auth));
          theirRuns.push(await throughput(theirs, auth));
        }
        return { a: median(ourRuns), b: median(theirRuns) };
      };
      const figures: Record<string, { almanac: number; baseline: number; ratio: number }> = {};
      for (const [name, ours, theirs, auth] of pairs) {
        const { a, b } = await sideBySide(ours, theirs, auth);
        figures[name] = { almanac: Math.round(a), baseline: Math.round(b), ratio: +(a / b).toFixed(2) };
        console.log(`ratio ${name}: ${(a / b).toFixed(2)} (almanac ${Math.round(a)} req/s, baseline ${Math.round(b)} req/s bare Koa)`);
      }
      // The dataset's web page and the search page against the API call behind each: what rendering a
      // page costs, as time per request (issue 20's target is 1.5×).
      const webPairs: Array<[string, string, string]> = [
        ['web-dataset-page', `${almanac.url}/dataset/${dataset.name}`, `${api}/packages/${dataset.id}`],
        [
          'web-search-page',
          `${almanac.url}/dataset?q=spending`,
          `${api}/packages?q=spending&include_facets=true&facet_limit=10&private=true`,
        ],
      ];
      for (const [name, pageUrl, jsonUrl] of webPairs) {
        const { a: page, b: json } = await sideBySide(pageUrl, jsonUrl);
        figures[name] = { almanac: Math.round(page), baseline: Math.round(json), ratio: +(json / page).toFixed(2) };
        console.log(
          `ratio ${name}: ${(json / page).toFixed(2)} (almanac page ${Math.round(page)} req/s, baseline ${new URL(jsonUrl).pathname} ${Math.round(json)} req/s; time per request)`,
        );
      }
      // CKAN's package_search against the REST listing of the same page, which shares its core
      // (findDatasetIds): what CKAN's dicts cost over REST's records, as time per request.
      const ckanPairs: Array<[string, string, string]> = [
        ['ckan-package-search', `${almanac.url}/api/3/action/package_search?rows=10`, `${api}/packages?limit=10`],
        ['ckan-package-search-q', `${almanac.url}/api/3/action/package_search?q=spending&rows=10`, `${api}/packages?q=spending&limit=10`],
      ];
      for (const [name, ckanUrl, restUrl] of ckanPairs) {
        const { a: ckan, b: rest } = await sideBySide(ckanUrl, restUrl);
        figures[name] = { almanac: Math.round(ckan), baseline: Math.round(rest), ratio: +(rest / ckan).toFixed(2) };
        console.log(
          `ratio ${name}: ${(rest / ckan).toFixed(2)} (almanac CKAN ${Math.round(ckan)} req/s, baseline ${new URL(restUrl).pathname} ${Math.round(rest)} req/s; time per request)`,
        );
      }
      return figures;
    } finally {
      bare.server.close();
      await pool.end();
    }
  } finally {
    await engines.stop();
  }
}

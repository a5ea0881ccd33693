/**
 * Bulk create (issue 19): real catalog records (../shared/data/catalog/catalog.jsonl, the first
 * BENCH_RECORDS, default 400) through POST /packages, 8 in flight from a client process of its own, into an Almanac with the local embedding
 * model. Each answer waits for the dataset's keyword document and points; the vectors follow through the
 * vector backlog (issue 29). Prints datasets per second over the whole load, how long after it the last
 * dataset is found by meaning, and the rate without a model; an untimed load warms the process first.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '../src/logger.ts';
import type { RunningAlmanac } from '../src/runtime/almanac.ts';
import { catalogRecords, orgName, packageBody } from '../test/helpers/catalog-records.ts';
import { benchToken, startAppOn, startEngines, startOtherAppOn } from '../test/helpers/engines.ts';
import { embeddingModelPath } from '../test/helpers/tools.ts';

const IN_FLIGHT = 8;
const run = promisify(execFile);

async function load(almanac: RunningAlmanac, count: number): Promise<{ created: number; seconds: number }> {
  const records = catalogRecords().slice(0, count);
  const token = await benchToken(almanac);
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  for (const [name, title] of new Map(records.map((r) => [orgName(r.organization), r.organization]))) {
    await fetch(`${almanac.url}/api/v1/organizations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name, title: title.slice(0, 300) }),
    });
  }
  const bodies = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'bench-bulk-')), 'bodies.jsonl');
  await fs.writeFile(bodies, records.map((r) => JSON.stringify(packageBody(r))).join('\n'));
  const { stdout } = await run(process.execPath, [
    '--import',
    'tsx',
    fileURLToPath(new URL('./post-client.ts', import.meta.url)),
    `${almanac.url}/api/v1/packages`,
    token,
    bodies,
    String(IN_FLIGHT),
  ]);
  await fs.rm(path.dirname(bodies), { recursive: true });
  return JSON.parse(stdout);
}

/** Seconds until the vector backlog has embedded every document the load wrote (drift 0 in every index). */
async function untilEmbedded(almanac: RunningAlmanac) {
  const started = performance.now();
  const headers = { Authorization: `Bearer ${await benchToken(almanac)}` };
  for (;;) {
    const stats = (await (await fetch(`${almanac.url}/api/v1/admin/search/stats`, { headers })).json()) as {
      indexes: Record<string, { drift: number | null }>;
    };
    if (Object.values(stats.indexes).every((index) => index.drift === 0)) return (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function benchBulkCreate(count: number) {
  const log = createLogger('warn');
  const engines = await startEngines('bench-bulk', log);
  try {
    // An untimed load first, as the harvest bench does: the first load in a process also pays for compiling
    // the create path and warming Temporal and PostgreSQL, which made the line measured first look ~30% slower.
    const warmup = await startOtherAppOn(engines, 'bulk_warmup', { EMBEDDINGS_PROVIDER: 'none' }, log);
    await load(warmup, count);
    await warmup.stop();
    const modelPath = await embeddingModelPath(log);
    const withModel = await startAppOn(
      engines,
      { TEMPORAL_TASK_QUEUE: 'bench-bulk-a', EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_PATH: modelPath },
      log,
    );
    const a = await load(withModel, count);
    const meaning = await untilEmbedded(withModel);
    console.log(
      `rate bulk-create: ${(a.created / a.seconds).toFixed(1)} datasets/s (${a.created} in ${a.seconds.toFixed(1)} s, ${IN_FLIGHT} in flight; all found by meaning ${meaning.toFixed(1)} s after the last answer)`,
    );
    await withModel.stop(); // each line with only its own app running
    const keywordOnly = await startOtherAppOn(engines, 'bulk_keyword', { EMBEDDINGS_PROVIDER: 'none' }, log);
    const b = await load(keywordOnly, count);
    console.log(
      `rate bulk-create-keyword-only: ${(b.created / b.seconds).toFixed(1)} datasets/s (${b.created} in ${b.seconds.toFixed(1)} s, no embedding model)`,
    );
    return { withModel: a, keywordOnly: b };
  } finally {
    await engines.stop();
  }
}

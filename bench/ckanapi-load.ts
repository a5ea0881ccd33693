/**
 * `ckanapi load datasets` (issue 29): real catalog records (../shared/data/catalog/catalog.jsonl, the
 * first BENCH_RECORDS, default 400) written as the package dicts a `ckanapi dump datasets` of a CKAN site
 * gives, loaded by the pinned ckanapi with BENCH_CKANAPI_PROCESSES worker processes (default 4, `-p 4`,
 * what an operator moving a catalog would pick on a small server) into an Almanac with the local
 * embedding model. Each record is ckanapi's package_show by id, by name, then package_create. The
 * organizations exist first (made through REST, as `ckanapi load organizations` would make them).
 * Prints datasets per second over the whole load, ckanapi's start included.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src/logger.ts';
import { catalogRecords, orgName, packageBody } from '../test/helpers/catalog-records.ts';
import { benchToken, startAppOn, startEngines } from '../test/helpers/engines.ts';
import { embeddingModelPath, pythonTools } from '../test/helpers/tools.ts';

/** A catalog record as a CKAN site's package dict (the keys ckanapi load sends back to package_create). */
function packageDict(record: ReturnType<typeof catalogRecords>[number], i: number) {
  const body = packageBody(record);
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    name: body.name,
    title: body.title,
    notes: body.notes,
    owner_org: body.ownerOrg,
    organization: { name: body.ownerOrg, title: record.organization },
    license_id: body.licenseId,
    private: false,
    state: 'active',
    type: 'dataset',
    tags: body.tags.map((name) => ({ name })),
    groups: [],
    extras: [],
    resources: body.resources.map((r) => ({ name: r.name ?? '', format: r.format ?? '', url: r.url })),
  };
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
    execFile(file, args, { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${file} ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    ),
  );
}

export async function benchCkanapiLoad(count: number, processes: number) {
  const log = createLogger('warn');
  const python = await pythonTools(log);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-ckanapi-'));
  const engines = await startEngines('bench-ckanapi', log);
  try {
    const records = catalogRecords().slice(0, count);
    const dump = path.join(dir, 'datasets.jsonl');
    await fs.writeFile(dump, records.map((r, i) => JSON.stringify(packageDict(r, i))).join('\n') + '\n');
    // ckanapi starts its workers as `ckanapi` from PATH.
    await fs.writeFile(
      path.join(dir, 'ckanapi'),
      `#!/bin/sh\nexec "${python}" -c 'import sys; from ckanapi.cli.main import main; sys.exit(main())' "$@"\n`,
      { mode: 0o755 },
    );
    const almanac = await startAppOn(
      engines,
      { TEMPORAL_TASK_QUEUE: 'bench-ckanapi', EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_PATH: await embeddingModelPath(log) },
      log,
    );
    const token = await benchToken(almanac);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    for (const [name, title] of new Map(records.map((r) => [orgName(r.organization), r.organization]))) {
      await fetch(`${almanac.url}/api/v1/organizations`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name, title: title.slice(0, 300) }),
      });
    }
    const logFile = path.join(dir, 'load.log');
    const env = { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH}` };
    const started = performance.now();
    await run(
      path.join(dir, 'ckanapi'),
      ['load', 'datasets', '-I', dump, '-p', String(processes), '-q', '-l', logFile, '-r', almanac.url, '-a', token],
      env,
    );
    const seconds = (performance.now() - started) / 1000;
    const lines = (await fs.readFile(logFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as unknown[]);
    const failed = lines.filter((l) => l[3] !== null);
    if (failed.length) throw new Error(`ckanapi load: ${failed.length} failed, first: ${JSON.stringify(failed[0])}`);
    const created = lines.filter((l) => l[2] === 'create').length;
    console.log(
      `rate ckanapi-load: ${(created / seconds).toFixed(1)} datasets/s (${created} in ${seconds.toFixed(1)} s, ckanapi load datasets -p ${processes}, with the embedding model)`,
    );
    return { created, seconds, processes };
  } finally {
    await engines.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * `npm test`: provisions what the suite needs into the cache on a fresh machine (test/helpers/tools.ts),
 * bundles the workflows once for every test worker, starts the engines the suite shares (embedded
 * PostgreSQL, an in-memory Temporal dev server, MinIO, and Qdrant when it is built here, all on free
 * ports), runs ava against them,
 * then stops them. Each test file creates its own database, Temporal task queue and bucket, so files run
 * in parallel without seeing each other.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src/logger.ts';
import { bundleWorkflows } from '../src/temporal/workflow-bundle.ts';
import { neverAuditedMessage, unitsNeverAudited } from './helpers/audited-units.ts';
import { startEngines } from './helpers/engines.ts';
import { chromiumBinary, embeddingModelPath, haproxyBinary, minioBinary, pythonTools, qdrantBinary } from './helpers/tools.ts';
import { startQdrant } from './helpers/qdrant-server.ts';

const log = createLogger(process.env.TEST_ENGINE_LOG_LEVEL ?? 'warn');
// Provisioning says what it fetches, once per machine, at info; the engines only speak when something is wrong.
const progress = createLogger('info');
const started = Date.now();
const bundleDir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-test-bundle-'));
// What takes long on a fresh machine is fetched or built side by side; the engines then start from the cache.
const [, modelPath, python, chromium, workflowBundle, qdrantPath, haproxy] = await Promise.all([
  minioBinary(progress),
  embeddingModelPath(progress),
  pythonTools(progress),
  chromiumBinary(progress),
  bundleWorkflows(path.join(bundleDir, 'workflow-bundle.js')),
  qdrantBinary(progress),
  haproxyBinary(progress),
]);
const engines = await startEngines('test', log, { minio: true });
// Qdrant when it is built here (QDRANT_URL given outright is used as it is): the Qdrant legs run against it.
const qdrant = qdrantPath && !process.env.QDRANT_URL ? await startQdrant(qdrantPath) : null;
// A run given ALMANAC_SELF_CHECK_REPORT keeps its report there: which units a partial run covered.
const selfCheckReport = process.env.ALMANAC_SELF_CHECK_REPORT || path.join(bundleDir, 'audited-units.txt');
const { pg, temporal } = engines;
const minio = engines.minio!;
console.log(
  `test engines ready in ${((Date.now() - started) / 1000).toFixed(1)}s (postgres ${pg.url('postgres').split('@')[1]}, temporal ${temporal.address}, minio ${minio.endpoint}${qdrant ? `, qdrant ${qdrant.url}` : ''})`,
);

const ava = spawn(path.resolve('node_modules/.bin/ava'), process.argv.slice(2), {
  stdio: 'inherit',
  env: {
    ...process.env,
    TEST_PG_URL: pg.url('postgres'),
    TEST_TEMPORAL_ADDRESS: temporal.address,
    TEST_S3_ENDPOINT: minio.endpoint,
    TEST_S3_ACCESS_KEY: minio.accessKey,
    TEST_S3_SECRET_KEY: minio.secretKey,
    TEST_PYTHON: python,
    // The cluster tests (test/cluster/) start a Qdrant of their own from the binary, to stop it under load.
    ...(qdrant ? { QDRANT_URL: qdrant.url, QDRANT_PATH: qdrantPath! } : {}),
    HAPROXY_PATH: haproxy,
    CHROMIUM_PATH: chromium,
    // What `bin/almanac serve` runs in the runtime tests: the CLI found or fetched above, not a second fetch.
    TEMPORAL_CLI_PATH: temporal.cliPath,
    EMBEDDINGS_MODEL_PATH: modelPath,
    ALMANAC_WORKFLOW_BUNDLE: workflowBundle,
    ALMANAC_SELF_CHECK_REPORT: selfCheckReport,
  },
});
const forward = (signal: NodeJS.Signals) => ava.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
const code = await new Promise<number>((resolve) => ava.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));

await Promise.all([engines.stop(), qdrant?.stop()]);
// A whole run must have seen every unit of every entry point (REST routes, MCP tools, CKAN actions, web
// pages, feeds) succeed under the self-checks (authorization audit; response schemas for REST).
const fullRun = process.argv.slice(2).every((arg) => arg.startsWith('-'));
const unaudited = fullRun && code === 0 ? await unitsNeverAudited(selfCheckReport) : [];
await fs.rm(bundleDir, { recursive: true, force: true });
if (unaudited.length) {
  console.log(neverAuditedMessage(unaudited));
  process.exitCode = 1;
}
console.log(`suite finished in ${((Date.now() - started) / 1000).toFixed(1)}s`);
process.exit(code || process.exitCode || 0);

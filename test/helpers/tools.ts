/**
 * What the test suite and the benchmarks need beyond `npm ci`, found or provisioned into the same cache
 * as the service's own (ALMANAC_CACHE_DIR, else $XDG_CACHE_HOME/almanac, else ~/.cache/almanac): the
 * Temporal CLI and the embedding model as `almanac serve` gets them, MinIO built from source with
 * `go install` at a pinned version, the Python clients the interop tests drive (the `mcp` SDK, Schemathesis,
 * ckanapi, rdflib, pySHACL, mlcroissant) in a virtual environment of their own, Debian's Chromium for
 * the web tests and haproxy for the cluster tests, and Qdrant when scripts/qdrant.sh has built it (never fetched here: see qdrantBinary).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { provisionEmbeddingModel } from '../../src/provision/embedding-model.ts';
import { ProvisionError } from '../../src/provision/download.ts';
import { buildInPlace, isExecutable, timed } from '../../src/provision/staging.ts';
import { locateTemporalCli } from '../../src/provision/temporal-cli.ts';
import { startTemporalDevServer } from '../../src/runtime/temporal-dev-server.ts';
import { freePort } from './ports.ts';

const run = promisify(execFile);

/** The last minio version on the Go module proxy. */
export const MINIO_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
/**
 * The Python packages of the test suite, pinned and installed together into one virtual environment:
 * the MCP SDK (test/mcp/python-client.test.ts), Schemathesis, which fuzzes the API against its OpenAPI
 * document (test/contract/, scripts/contract-fuzz.ts), and the catalog world's clients for the CKAN API
 * and the feeds (test/interop/): ckanapi, rdflib, pySHACL with the DCAT-AP shapes, mlcroissant.
 */
/** The DuckDB inside @duckdb/node-bindings (its version is DuckDB's, plus `-r.N`). */
const DUCKDB_VERSION = (createRequire(import.meta.url)('@duckdb/node-bindings/package.json') as { version: string }).version.split('-')[0]!;
const PYTHON_TOOLS = [
  'mcp==2.3.0',
  'schemathesis==4.32.5',
  'ckanapi==4.11',
  'rdflib==7.6.0',
  'pyshacl==0.40.1',
  'mlcroissant==1.1.1',
  'pyarrow==26.0.1',
  'openpyxl==3.1.5',
  // DuckDB's own excel extension (DuckDB Labs publishes extensions on PyPI), at the DuckDB of
  // @duckdb/node-bindings: the exports bench's baseline for XLSX is its COPY … TO (FORMAT xlsx).
  `duckdb-extension-excel==${DUCKDB_VERSION}`,
];

const provision = () => loadConfig(process.env).provision;

/** An in-memory Temporal dev server on a free port, with no UI: for the suite and the benchmarks. */
export async function startScratchTemporal(log: Logger) {
  const cli = await locateTemporalCli({ explicit: process.env.TEMPORAL_CLI_PATH, ...provision() }, log);
  // A free port can be taken by another process before the server binds it (seen once at a suite's
  // start): a fresh port, twice more, as for MinIO.
  for (let attempt = 1; ; attempt++) {
    try {
      const server = await startTemporalDevServer(
        { cliPath: cli.path, port: await freePort(), uiPort: 0, namespace: 'default', ui: false },
        log,
      );
      return { ...server, cliPath: cli.path };
    } catch (err) {
      if (attempt >= 3 || !String((err as Error).message).includes('address already in use')) throw err;
      log.warn({ attempt }, 'the Temporal dev server found its port taken; starting it on another');
    }
  }
}

/** EMBEDDINGS_MODEL_PATH, else the default model in the cache (fetched on first use). */
export async function embeddingModelPath(log: Logger): Promise<string> {
  if (process.env.EMBEDDINGS_MODEL_PATH) return path.resolve(process.env.EMBEDDINGS_MODEL_PATH);
  const { cacheDir } = provision();
  const config = loadConfig(process.env).embeddings;
  const sources =
    config.provider === 'local' ? config : { hfEndpoint: 'https://huggingface.co', mavenUrl: 'https://repo1.maven.org/maven2' };
  return (
    await provisionEmbeddingModel(
      { modelsDir: path.join(cacheDir, 'models'), hfEndpoint: sources.hfEndpoint, mavenUrl: sources.mavenUrl },
      log,
    )
  ).modelsDir;
}

/** MINIO_PATH, else `minio` on PATH, else the cached build, else built into the cache with `go install`. */
export async function minioBinary(log: Logger): Promise<string> {
  if (process.env.MINIO_PATH) {
    if (!(await isExecutable(process.env.MINIO_PATH)))
      throw new ProvisionError(`MINIO_PATH: no executable file at ${process.env.MINIO_PATH}`);
    return process.env.MINIO_PATH;
  }
  const onPath = await firstOnPath('minio');
  if (onPath) return onPath;
  const dir = path.join(provision().cacheDir, `minio-${MINIO_VERSION}`);
  const binary = path.join(dir, 'minio');
  if (await isExecutable(binary)) return binary;

  const go = (await firstOnPath('go')) ?? ((await isExecutable('/usr/local/go/bin/go')) ? '/usr/local/go/bin/go' : undefined);
  if (!go)
    throw new ProvisionError(`the storage tests need MinIO: install Go (https://go.dev/dl/) so that it can be built, or set MINIO_PATH`);
  log.info(`building MinIO ${MINIO_VERSION} with go install (first run only, a few minutes)…`);
  const { seconds } = await timed(() =>
    buildInPlace(dir, async (stage) => {
      await run(go, ['install', `github.com/minio/minio@${MINIO_VERSION}`], {
        env: { ...process.env, GOBIN: stage },
        maxBuffer: 64 * 1024 * 1024,
      });
    }),
  );
  log.info(`MinIO ready in ${seconds} s (kept in ${dir})`);
  return binary;
}

/**
 * A Python with the suite's Python tools: a virtual environment in the cache, made on first use.
 * Run Schemathesis as `python -m schemathesis.cli`.
 */
export async function pythonTools(log: Logger): Promise<string> {
  // The folder names the pins, so a new pin makes a new environment.
  const pins = createHash('sha256').update(PYTHON_TOOLS.join(' ')).digest('hex').slice(0, 12);
  const dir = path.join(provision().cacheDir, `python-tools-${pins}`);
  const python = path.join(dir, 'bin', 'python');
  if (await isExecutable(python)) return python;
  const system = (await firstOnPath('python3')) ?? (await firstOnPath('python'));
  if (!system) throw new ProvisionError('the MCP interop and contract tests need Python 3.10 or later (python3 on PATH)');
  log.info(`installing ${PYTHON_TOOLS.join(', ')} into a virtual environment (first run only)…`);
  const { seconds } = await timed(() =>
    buildInPlace(dir, async (stage) => {
      // Moved into place once whole: its python finds the environment from where it runs (we never call
      // the console scripts, whose first line names the staging folder).
      await run(system, ['-m', 'venv', stage]);
      await run(path.join(stage, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...PYTHON_TOOLS], {
        maxBuffer: 16 * 1024 * 1024,
      });
    }),
  );
  log.info(`Python tools ready in ${seconds} s (kept in ${dir})`);
  return python;
}

/** The excel extension's file (see PYTHON_TOOLS), for a DuckDB of the same version to LOAD. */
export async function duckdbExcelExtension(log: Logger): Promise<string> {
  const python = await pythonTools(log);
  const { stdout } = await run(python, [
    '-c',
    'import duckdb_extension_excel, os; print(os.path.dirname(duckdb_extension_excel.__file__))',
  ]);
  return path.join(stdout.trim(), 'extensions', `v${DUCKDB_VERSION}`, 'excel.duckdb_extension');
}

/**
 * The browser the web tests drive: CHROMIUM_PATH, else Debian's `chromium` on PATH, else installed from
 * Debian's packages (apt-get, as root or through sudo): never a test tool's own browser download.
 */
export async function chromiumBinary(log: Logger): Promise<string> {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return debianBinary('chromium', 'chromium', 'for the browser tests', log);
}

/**
 * Debian's haproxy (HAPROXY_PATH, else `haproxy` on PATH, else apt-get): the load balancer in front of the
 * cluster tests' two API processes (test/cluster/), as an operator would put one.
 */
export async function haproxyBinary(log: Logger): Promise<string> {
  if (process.env.HAPROXY_PATH) return process.env.HAPROXY_PATH;
  return debianBinary('haproxy', 'haproxy', "for the cluster tests' load balancer", log, ['/usr/sbin']);
}

/** apt-get holds one lock: installs provisioned side by side take turns. */
let aptQueue: Promise<unknown> = Promise.resolve();

async function debianBinary(pkg: string, binary: string, why: string, log: Logger, extraDirs: string[] = []): Promise<string> {
  const found = await firstOnPath(binary, extraDirs);
  if (found) return found;
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = async (...args: string[]) => {
    const [command, ...rest] = [...sudo, 'apt-get', ...args];
    await run(command!, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, maxBuffer: 64 * 1024 * 1024 });
  };
  const install = aptQueue.then(async () => {
    log.info(`installing Debian's ${pkg} ${why} (first run only)…`);
    return timed(async () => {
      await apt('update', '-q');
      await apt('install', '-y', '-q', '--no-install-recommends', pkg);
    });
  });
  aptQueue = install.catch(() => undefined);
  const { seconds } = await install;
  const installed = await firstOnPath(binary, extraDirs);
  if (!installed) throw new ProvisionError(`apt-get installed ${pkg}, yet no \`${binary}\` is on PATH`);
  log.info(`${pkg} ready in ${seconds} s (${installed})`);
  return installed;
}

async function firstOnPath(name: string, extraDirs: string[] = []): Promise<string | undefined> {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), ...extraDirs]) {
    if (dir && (await isExecutable(path.join(dir, name)))) return path.join(dir, name);
  }
  return undefined;
}

/** The Qdrant scripts/qdrant.sh builds from its pinned source (issue 31). */
export const QDRANT_VERSION = '1.19.0';

/**
 * QDRANT_PATH, else the build scripts/qdrant.sh left in the cache, else null: no registry this project
 * reaches serves Qdrant and a fresh machine cannot fetch its repository, so the suite runs without it and
 * says so, and only the Qdrant legs are skipped.
 */
export async function qdrantBinary(log: Logger): Promise<string | null> {
  if (process.env.QDRANT_PATH) {
    if (!(await isExecutable(process.env.QDRANT_PATH)))
      throw new ProvisionError(`QDRANT_PATH: no executable file at ${process.env.QDRANT_PATH}`);
    return process.env.QDRANT_PATH;
  }
  const cached = path.join(provision().cacheDir, `qdrant-${QDRANT_VERSION}`, 'qdrant');
  if (await isExecutable(cached)) return cached;
  log.info(`Qdrant ${QDRANT_VERSION} is not built here: its legs are skipped (scripts/qdrant.sh builds it from source; README, "Qdrant")`);
  return null;
}

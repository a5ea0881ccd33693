import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { DomainError } from '../domain/errors.ts';
import { NewUserFields } from '../domain/users/fields.ts';
import { createLogger } from '../logger.ts';
import { ProvisionError } from '../provision/download.ts';

// The engines (ORM, Temporal, Koa) load only for the command that needs them: `--help` and a bad
// setting answer at once.
const runtime = () => import('../runtime/almanac.ts');
const database = () => import('../runtime/database.ts');
const runtimeServices = () => import('../runtime/services.ts');
const temporalWorker = () => import('../temporal/worker.ts');
const embeddedPostgres = () => import('../runtime/embedded-postgres.ts');
const users = () => import('../domain/users/users.ts');

const USAGE = `usage: almanac <command>

  serve                  run the API (and, in embedded mode, Postgres, Temporal and the worker)
  worker                 run a Temporal worker alone (production; needs TEMPORAL_ADDRESS)
  migrate                apply database migrations and exit
  provision [temporal] [model]
                         fetch the Temporal CLI and the embedding model into the cache now (both by
                         default), e.g. while building an image; serve does it on first start anyway
  admin create-user      --username U --email E [--password P | password on stdin] [--display-name N] [--sysadmin]
  harvest <url> --type ckan|dcat-us|dcat-ap [--org NAME] [--name SOURCE] [--full]
                         import another catalog: creates the harvest source (or reuses the one with this
                         url and type), runs it on the workers through Temporal, shows the counts as they
                         move and ends with the summary and the Temporal UI link (exit 1 when it failed);
                         --full reads everything (a CKAN source otherwise runs incrementally)

Configuration comes from environment variables; see README.md.`;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === 'help') {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  switch (command) {
    case 'serve':
      return serve(config, log);
    case 'worker':
      return worker(config, log);
    case 'migrate': {
      const db = await (await database()).startDatabase(config, log);
      await db.stop();
      log.info('migrations are up to date');
      return;
    }
    case 'provision':
      return provision(config, log, rest);
    case 'harvest':
      return harvest(config, log, rest);
    case 'admin':
      if (rest[0] === 'create-user') return adminCreateUser(config, log, rest.slice(1));
      throw new UsageError(`unknown admin command "${rest[0] ?? ''}"\n\n${USAGE}`);
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

async function serve(config: Config, log: Logger) {
  // Listening from the start: a signal during start-up stops the service once it is up, in order.
  const shutdown = await shutdownRequests(log);
  const almanac = await (await runtime()).startAlmanac(config, log, { onFatal: shutdown.fail });
  await shutdown.requested;
  await almanac.stop();
}

async function worker(config: Config, log: Logger) {
  if (config.temporal.embedded) {
    throw new UsageError('almanac worker needs TEMPORAL_ADDRESS; in embedded mode `almanac serve` runs the worker itself');
  }
  const shutdown = await shutdownRequests(log);
  const { StopStack } = await import('../runtime/stop-stack.ts');
  const stack = new StopStack(log);
  try {
    const services = await (await runtimeServices()).buildServices(config, log, stack, { role: 'worker' });
    const { createActivities } = await import('../../activities/index.ts');
    const running = await (
      await temporalWorker()
    ).startWorker({
      ...config.temporal,
      activities: createActivities(services),
      log,
      onFatal: shutdown.fail,
    });
    stack.push('worker', () => running.stop());
    await shutdown.requested;
  } finally {
    await stack.stop();
  }
}

async function provision(config: Config, log: Logger, what: string[]) {
  const unknown = what.filter((w) => w !== 'temporal' && w !== 'model');
  if (unknown.length > 0) throw new UsageError(`provision: unknown part "${unknown[0]}" (temporal, model)\n\n${USAGE}`);
  const wanted = (part: string) => what.length === 0 || what.includes(part);
  if (wanted('temporal')) {
    const { locateTemporalCli } = await import('../provision/temporal-cli.ts');
    const cli = await locateTemporalCli({ explicit: config.temporal.cliPath, ...config.provision }, log);
    console.log(`Temporal CLI: ${cli.path} (${cli.foundBy})`);
  }
  if (wanted('model')) {
    const { provisionEmbeddingModel } = await import('../provision/embedding-model.ts');
    const embeddings = config.embeddings;
    if (embeddings.provider !== 'local')
      throw new UsageError('provision model: EMBEDDINGS_PROVIDER is not local, so there is no model to fetch');
    const model = await provisionEmbeddingModel(
      { modelsDir: embeddings.cacheDir, hfEndpoint: embeddings.hfEndpoint, mavenUrl: embeddings.mavenUrl },
      log,
    );
    console.log(`embedding model: ${model.modelsDir} (${model.foundBy}; EMBEDDINGS_MODEL_PATH=${model.modelsDir} loads it from there)`);
  }
}

async function adminCreateUser(config: Config, log: Logger, args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      'display-name': { type: 'string' },
      sysadmin: { type: 'boolean', default: false },
    },
  });
  const fields = NewUserFields.safeParse({
    username: values.username,
    email: values.email,
    password: values.password ?? (await readStdin()).trim(),
    displayName: values['display-name'],
  });
  if (!fields.success) {
    const flag = (field: PropertyKey) => (field === 'displayName' ? 'display-name' : String(field));
    const problems = fields.error.issues.map((i) => `--${flag(i.path[0])}: ${i.message}`);
    throw new UsageError(`admin create-user: ${problems.join('; ')} (the password may come on stdin)`);
  }

  const db = await (await database()).startDatabase(config, log);
  try {
    const user = await (await users()).createUser({ em: db.orm.em.fork() }, { ...fields.data, sysadmin: values.sysadmin });
    console.log(`created user ${user.username} (${user.id})${user.sysadmin ? ' as sysadmin' : ''}`);
  } finally {
    await db.stop();
  }
}

async function harvest(config: Config, log: Logger, args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { type: { type: 'string' }, org: { type: 'string' }, name: { type: 'string' }, full: { type: 'boolean' } },
  });
  const cli = await import('./harvest.ts');
  if (positionals.length !== 1) throw new UsageError(`harvest: give the source's URL once\n\n${USAGE}`);
  let type;
  try {
    type = cli.parseHarvestType(values.type);
  } catch (err) {
    throw new UsageError(`harvest: ${(err as Error).message}`);
  }
  const { ok } = await cli.runHarvestCli(config, log, {
    url: positionals[0]!,
    type,
    org: values.org,
    name: values.name,
    full: values.full ?? false,
  });
  if (!ok) process.exitCode = 1;
}

/**
 * `requested` resolves on the first SIGINT or SIGTERM (a second one exits at once), or when a part
 * fails for good (`fail`), so the service then stops in order and exits non-zero.
 */
async function shutdownRequests(log: Logger) {
  (await embeddedPostgres()).releaseShutdownSignals();
  let resolve!: () => void;
  const requested = new Promise<void>((r) => (resolve = r));
  const onSignal = (signal: NodeJS.Signals) => {
    log.info({ signal }, 'shutting down');
    process.once('SIGINT', () => process.exit(130));
    process.once('SIGTERM', () => process.exit(143));
    resolve();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const fail = (err: unknown) => {
    log.fatal({ err }, 'a part of the service failed; shutting down');
    process.exitCode = 1;
    resolve();
  };
  return { requested, fail };
}

async function readStdin() {
  if (process.stdin.isTTY) return '';
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  () => process.exit(process.exitCode),
  (err) => {
    if (err instanceof ConfigError || err instanceof UsageError) {
      console.error(err.message);
      process.exit(2);
    }
    // Something to install or a network to reach: the message says which, a stack would only hide it.
    if (err instanceof ProvisionError) {
      console.error(err.message);
      process.exit(1);
    }
    // A rule of the domain said no (a taken username, say): its message is the whole story.
    if (err instanceof DomainError) {
      const fields = err.errors?.map((e) => `${e.path} ${e.message}`).join(', ');
      console.error(fields ? `${err.message} (${fields})` : err.message);
      process.exit(1);
    }
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);

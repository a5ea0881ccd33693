import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort } from './ports.ts';
import { stopChild } from '../../src/runtime/child-process.ts';

const START_TIMEOUT_MS = 60_000;

export interface RunningMinio {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  stop(): Promise<void>;
  /** Stops the server and starts it again on the same address and data (the fault tests' outage). */
  restart(): Promise<void>;
}

/** Starts a throwaway MinIO server on free loopback ports, its data in `dataDir`, and waits until it is ready. */
export async function startMinio(binary: string, dataDir: string): Promise<RunningMinio> {
  const accessKey = process.env.MINIO_ROOT_USER || 'almanac-test';
  const secretKey = process.env.MINIO_ROOT_PASSWORD || randomBytes(16).toString('hex');
  // A port free a moment ago can be taken by another process before MinIO binds it: MinIO then exits at
  // once, and fresh ports are tried.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let consolePort = await freePort();
    while (consolePort === port) consolePort = await freePort();
    let child: ChildProcess;
    try {
      child = await launch(binary, dataDir, port, consolePort, accessKey, secretKey);
    } catch (err) {
      if (attempt === 3 || !(err as Error).message.startsWith('minio exited')) throw err;
      continue;
    }
    return {
      endpoint: `http://127.0.0.1:${port}`,
      accessKey,
      secretKey,
      stop: () => stopChild(child),
      async restart() {
        await stopChild(child);
        child = await launch(binary, dataDir, port, consolePort, accessKey, secretKey);
      },
    };
  }
}

async function launch(binary: string, dataDir: string, port: number, consolePort: number, accessKey: string, secretKey: string) {
  const child = spawn(
    binary,
    ['server', dataDir, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'],
    {
      env: { ...process.env, MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey, MINIO_UPDATE: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a Ctrl-C reaches the test runner alone, which then stops MinIO in order.
      detached: true,
    },
  );
  // Should the runner exit without stop(), the server must not outlive it.
  const stopWithUs = () => child.kill('SIGKILL');
  process.on('exit', stopWithUs);
  child.once('exit', () => process.off('exit', stopWithUs));
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString().split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 20));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);

  try {
    await waitUntilReady(`http://127.0.0.1:${port}`, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message} (${binary})\n${tail.join('\n')}`, { cause: err });
  }
  return child;
}

async function waitUntilReady(endpoint: string, child: ChildProcess) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`minio exited with code ${child.exitCode}`);
    const ready = await fetch(`${endpoint}/minio/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`minio was not ready at ${endpoint} within ${START_TIMEOUT_MS / 1000}s`);
}

/** The suite's MinIO, from the environment test/run.ts gives ava. */
export function suiteMinio() {
  const endpoint = process.env.TEST_S3_ENDPOINT;
  const accessKey = process.env.TEST_S3_ACCESS_KEY;
  const secretKey = process.env.TEST_S3_SECRET_KEY;
  if (!endpoint || !accessKey || !secretKey) throw new Error('run the suite with `npm test`, which starts MinIO');
  return { endpoint, accessKey, secretKey };
}

/** A bucket name no other test uses; the store creates it in ensureReady. */
export const freshBucketName = (label = 'test') => `almanac-${label}-${randomBytes(6).toString('hex')}`;

/** Environment for `startTestApp(s3Env())`: the app on the suite's MinIO, in a bucket of its own. */
export function s3Env(): Record<string, string> {
  const minio = suiteMinio();
  return { S3_ENDPOINT: minio.endpoint, S3_ACCESS_KEY: minio.accessKey, S3_SECRET_KEY: minio.secretKey, S3_BUCKET: freshBucketName() };
}

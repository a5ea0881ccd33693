import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';

/**
 * A Qdrant of its own for a test run: the binary given (test/helpers/tools.ts `qdrantBinary`), its storage
 * in a temporary folder, on free ports, configured through its environment (QDRANT__SECTION__KEY). Ready
 * when /readyz answers; `stop` ends it and removes its storage. Given a storage folder and an HTTP port
 * (a Qdrant stopped and started again, as the cluster's faults do), it keeps that folder.
 */
export async function startQdrant(binary: string, opts: { storage?: string; port?: number } = {}) {
  const dir = opts.storage ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-qdrant-')));
  await fs.mkdir(dir, { recursive: true });
  const [http, grpc] = [opts.port ?? (await freePort()), await freePort()];
  const child = spawn(binary, [], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      QDRANT__SERVICE__HOST: '127.0.0.1',
      QDRANT__SERVICE__HTTP_PORT: String(http),
      QDRANT__SERVICE__GRPC_PORT: String(grpc),
      QDRANT__STORAGE__STORAGE_PATH: path.join(dir, 'storage'),
      QDRANT__STORAGE__SNAPSHOTS_PATH: path.join(dir, 'snapshots'),
      QDRANT__TELEMETRY_DISABLED: 'true',
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${http}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Qdrant exited (${child.exitCode}): ${stderr}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Qdrant did not answer /readyz within 60 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      if (!opts.storage) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

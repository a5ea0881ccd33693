/**
 * Cold and warm start-up of `almanac serve` in embedded mode: time from spawn until /api/health is ok.
 * Cold = empty data directory (initdb, migrations, first Temporal start); warm = the same directory again.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/ports.ts';

async function timeStart(dataDir: string) {
  const [port, pgPort, temporalPort, uiPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const started = performance.now();
  const child = spawn(path.resolve('bin/almanac'), ['serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      ALMANAC_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      TEMPORAL_DEV_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(uiPort),
      LOG_LEVEL: 'warn',
    },
    stdio: 'inherit',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const ms = performance.now() - started;
  child.kill('SIGTERM');
  await exited;
  return ms;
}

export async function benchStartup(runs = 3) {
  const results: Array<{ cold: number; warm: number }> = [];
  for (let i = 0; i < runs; i++) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-bench-'));
    await fs.chmod(dir, 0o755);
    const cold = await timeStart(dir);
    const warm = await timeStart(dir);
    results.push({ cold, warm });
    await fs.rm(dir, { recursive: true, force: true });
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    coldMs: Math.round(median(results.map((r) => r.cold))),
    warmMs: Math.round(median(results.map((r) => r.warm))),
    runs,
  };
}

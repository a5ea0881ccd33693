import type { ChildProcess } from 'node:child_process';

/** How long an engine gets to stop on SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 10_000;

/** SIGTERM, then SIGKILL after STOP_GRACE_MS; resolves once the process has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Builds `finalDir` in a scratch folder beside it and renames it into place once `build` succeeds, so an
 * interrupted or failed run never leaves something that looks complete, and two processes provisioning
 * at once both end with a whole copy (the later rename loses to the one already there).
 */
export async function buildInPlace(finalDir: string, build: (stageDir: string) => Promise<void>): Promise<void> {
  await fs.mkdir(path.dirname(finalDir), { recursive: true });
  const stage = await fs.mkdtemp(path.join(path.dirname(finalDir), `.${path.basename(finalDir)}.partial-`));
  try {
    await build(stage);
    await fs.chmod(stage, 0o755);
    await fs.rename(stage, finalDir).catch(async (err: NodeJS.ErrnoException) => {
      // Someone else finished first: theirs is as good as ours.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await fs.rm(stage, { recursive: true, force: true });
  }
}

/**
 * Builds `finalDir` from the first source that works, each tried in a fresh scratch folder. Returns which
 * one and how long it took ("ready in 4.1 s"); when none works, the failures, one per source.
 */
export async function buildFromFirst(
  finalDir: string,
  sources: Array<[name: string, build: (stageDir: string) => Promise<void>]>,
): Promise<{ source: string; seconds: string } | { failures: string[] }> {
  const failures: string[] = [];
  for (const [source, build] of sources) {
    try {
      const { seconds } = await timed(() => buildInPlace(finalDir, build));
      return { source, seconds };
    } catch (err) {
      failures.push(`${source}: ${(err as Error).message}`);
    }
  }
  return { failures };
}

/** Runs `fn` and returns its result with the seconds it took, for "ready in 4.1 s" lines. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: string }> {
  const started = performance.now();
  const value = await fn();
  return { value, seconds: ((performance.now() - started) / 1000).toFixed(1) };
}

/** True when `file` exists and is an executable regular file. */
export async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    await fs.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

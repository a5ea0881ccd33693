#!/usr/bin/env node
// `npm run build`: compiles the service to dist/ with tsc (tsconfig.build.json) and bundles the Temporal
// workflows once into dist/workflow-bundle.js, so production runs plain JavaScript and no worker start runs
// webpack. With --if-stale (npm start, npm test) it does nothing when dist/ was built from these very
// sources: a hash of every input file, kept in dist/.build-hash.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const hashFile = path.join(dist, '.build-hash');
const INPUTS = [
  'src',
  'workflows',
  'activities',
  'migrations',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
];

function filesUnder(entry) {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [entry];
  return fs
    .readdirSync(full, { recursive: true })
    .map((f) => path.join(entry, String(f)))
    .filter((f) => fs.statSync(path.join(root, f)).isFile());
}

function inputsHash() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder).sort())
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

const started = performance.now();
const hash = inputsHash();
if (process.argv.includes('--if-stale') && fs.existsSync(hashFile) && fs.readFileSync(hashFile, 'utf8') === hash) process.exit(0);

console.error('building Almanac into dist/ (tsc, then the workflow bundle)…');
// From scratch: a file deleted from the sources must not live on in dist/ (a stale migration would run).
fs.rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) {
  fs.rmSync(dist, { recursive: true, force: true });
  process.exit(tsc.status ?? 1);
}
// The web pages' stylesheet and scripts are served as they are: tsc leaves them out.
fs.cpSync(path.join(root, 'src/web/assets'), path.join(dist, 'src/web/assets'), { recursive: true });
const { bundleWorkflows, BUILT_BUNDLE } = await import(path.join(dist, 'src/temporal/workflow-bundle.js'));
await bundleWorkflows(BUILT_BUNDLE);
fs.writeFileSync(hashFile, hash);
console.error(`built in ${((performance.now() - started) / 1000).toFixed(1)} s`);

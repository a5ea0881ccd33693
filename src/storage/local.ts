import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ObjectNotFoundError,
  type ByteRange,
  type ListedObject,
  type ObjectStat,
  type ObjectStore,
  type PresignedRequest,
} from './object-store.ts';
import { signPut, verifyPut, type PresentedPut, type PutVerdict } from './signing.ts';
import { assertByteRange, assertPresignExpiry, assertSafeKey, assertSafePrefix } from './validation.ts';

export interface LocalStoreSettings {
  dir: string;
  /** Almanac's public URL: presigned uploads are PUTs to Almanac itself, which checks them and stores the body. */
  publicUrl: string;
  /** STORAGE_SIGNING_SECRET; when unset, a secret is generated into `signingKeyFile` at first start and reused. */
  signingSecret?: string;
  signingKeyFile: string;
}

/** Tries of a put whose fresh folder a concurrent removal pruned between mkdir and open. */
const CREATE_ATTEMPTS = 5;

/**
 * The embedded default: files under $ALMANAC_DATA_DIR/files, one file per object at its key's path, so
 * the folder can be inspected and backed up as is. The content type lives in a hidden sidecar next to it.
 */
export class LocalObjectStore implements ObjectStore {
  readonly kind = 'local' as const;
  private readonly root: string;
  private secret: string | undefined;

  constructor(private readonly settings: LocalStoreSettings) {
    this.root = path.resolve(settings.dir);
    this.secret = settings.signingSecret;
  }

  async ensureReady() {
    await fs.mkdir(this.root, { recursive: true });
    this.secret ??= await loadOrCreateSigningKey(this.settings.signingKeyFile);
  }

  async isHealthy() {
    return fs.access(this.root, fs.constants.W_OK).then(
      () => true,
      () => false,
    );
  }

  async put(key: string, body: Readable, meta: { contentType?: string } = {}) {
    let file: string;
    let temp: string;
    let handle: fs.FileHandle;
    try {
      file = this.pathOf(key);
      // Same folder as the object, so the final rename is atomic: readers see the old file or the new one.
      temp = tempNameFor(file);
      handle = await openCreatingFolders(temp);
    } catch (err) {
      body.destroy(); // a source nobody will read, such as a request body, must not stay open
      throw err;
    }
    const sidecar = sidecarOf(file);
    let size: number;
    try {
      // The stream closes the handle when it ends or fails (a stream left holding it would block close()).
      await pipeline(body, handle.createWriteStream());
      size = await syncToDisk(temp);
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    }

    let sidecarTemp: string | undefined;
    try {
      if (meta.contentType !== undefined) {
        sidecarTemp = tempNameFor(sidecar);
        await fs.writeFile(sidecarTemp, JSON.stringify({ contentType: meta.contentType }), { flag: 'wx' });
      }
      await fs.rename(temp, file);
    } catch (err) {
      await fs.rm(temp, { force: true });
      if (sidecarTemp) await fs.rm(sidecarTemp, { force: true });
      throw err;
    }
    if (sidecarTemp) await fs.rename(sidecarTemp, sidecar);
    else await unlinkIfPresent(sidecar);
    return { size };
  }

  async stat(key: string): Promise<ObjectStat | null> {
    const file = this.pathOf(key);
    const stats = await fs.stat(file).catch(nullWhenMissing);
    if (!stats?.isFile()) return null;
    const sidecar = await fs.readFile(sidecarOf(file), 'utf8').catch(nullWhenMissing);
    const contentType = sidecar === null ? null : (JSON.parse(sidecar) as { contentType: string }).contentType;
    return { size: stats.size, contentType };
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.pathOf(key);
    if (range) assertByteRange(range);
    // Reading through the descriptor opened here keeps the stream on this version even if a put replaces it.
    const handle = await fs.open(file, 'r').catch(nullWhenMissing);
    if (!handle) throw new ObjectNotFoundError(key);
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new ObjectNotFoundError(key);
      if (range && range.start >= stats.size)
        throw new RangeError(`range starts at ${range.start}, past the end of ${key} (${stats.size} bytes)`);
    } catch (err) {
      await handle.close();
      throw err;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async move(from: string, to: string) {
    const source = this.pathOf(from);
    const target = this.pathOf(to);
    if (!(await fs.stat(source).catch(nullWhenMissing))?.isFile()) throw new ObjectNotFoundError(from);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // One file system: a rename is atomic, and instant whatever the size.
    const sidecar = await fs.readFile(sidecarOf(source), 'utf8').catch(nullWhenMissing);
    if (sidecar === null) await unlinkIfPresent(sidecarOf(target));
    else await fs.writeFile(sidecarOf(target), sidecar);
    await fs.rename(source, target);
    await unlinkIfPresent(sidecarOf(source));
    await this.pruneEmptyFolders(path.dirname(source));
  }

  async remove(key: string) {
    const file = this.pathOf(key);
    await unlinkIfPresent(file);
    await unlinkIfPresent(sidecarOf(file));
    await this.pruneEmptyFolders(path.dirname(file));
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    for (const key of await this.keysUnder(prefix)) {
      const stats = await fs.stat(this.pathOf(key)).catch(nullWhenMissing);
      if (stats?.isFile()) yield { key, size: stats.size, lastModified: stats.mtime };
    }
  }

  async removePrefix(prefix: string) {
    for (const key of await this.keysUnder(prefix)) await this.remove(key);
  }

  private async keysUnder(prefix: string) {
    assertSafePrefix(prefix);
    // Only the folder the prefix's complete segments name can hold matching keys.
    const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    const keys: string[] = [];
    await collectKeys(path.join(this.root, ...base.split('/').filter(Boolean)), base, prefix, keys);
    return keys;
  }

  async presignPut(key: string, options: { contentType: string; expiresInSeconds: number }): Promise<PresignedRequest> {
    assertSafeKey(key);
    assertPresignExpiry(options.expiresInSeconds);
    // eslint-disable-next-line no-control-regex
    if (!options.contentType || /[\u0000-\u001f\u007f]/.test(options.contentType)) {
      throw new TypeError(`not a usable Content-Type: ${JSON.stringify(options.contentType)}`);
    }
    const expires = Math.floor(Date.now() / 1000) + options.expiresInSeconds;
    const signature = signPut(this.signingSecret(), key, expires, options.contentType);
    return {
      url: `${this.settings.publicUrl}/api/v1/storage/${encodeURIComponent(key)}?expires=${expires}&signature=${signature}`,
      method: 'PUT',
      headers: { 'Content-Type': options.contentType },
      expiresAt: new Date(expires * 1000),
    };
  }

  /** Checks a PUT made to a URL from `presignPut`; the caller then streams the body to `put`. */
  verifyPresignedPut(presented: PresentedPut): PutVerdict {
    return verifyPut(this.signingSecret(), presented);
  }

  private signingSecret() {
    if (!this.secret) throw new Error('the local object store signs URLs only after ensureReady()');
    return this.secret;
  }

  private pathOf(key: string) {
    assertSafeKey(key);
    const file = path.join(this.root, ...key.split('/'));
    // assertSafeKey already rules out every escape; this is the last line should it ever miss one.
    if (!file.startsWith(this.root + path.sep)) throw new Error(`key ${key} resolves outside the store`);
    return file;
  }

  /** Removes now-empty folders up to the root, so deleted resources leave no folder behind. */
  private async pruneEmptyFolders(folder: string) {
    for (let dir = folder; dir.startsWith(this.root + path.sep); dir = path.dirname(dir)) {
      try {
        await fs.rmdir(dir);
      } catch {
        return; // not empty (or already gone): so are its parents, as far as we are concerned
      }
    }
  }
}

const sidecarOf = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.meta.json`);
const tempNameFor = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);

/**
 * Without it a crash soon after the rename can leave an empty or partial file under the final name.
 * fsync through any descriptor flushes the file, so a fresh one does. Returns the size on disk.
 */
async function syncToDisk(file: string) {
  const handle = await fs.open(file, 'r+');
  try {
    await handle.sync();
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}

async function openCreatingFolders(file: string) {
  for (let attempt = 1; ; attempt++) {
    await fs.mkdir(path.dirname(file), { recursive: true });
    try {
      return await fs.open(file, 'wx', 0o644);
    } catch (err) {
      if (!isMissing(err) || attempt === CREATE_ATTEMPTS) throw err;
    }
  }
}

/** Every object key under `dir` (whose key form is `base`) that starts with `prefix`, skipping what cannot match. */
async function collectKeys(dir: string, base: string, prefix: string, into: string[]) {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(nullWhenMissing);
  for (const entry of entries ?? []) {
    if (entry.name.startsWith('.')) continue; // sidecars and temporary files go with their object
    const key = base ? `${base}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) await collectKeys(path.join(dir, entry.name), key, prefix, into);
    } else if (key.startsWith(prefix)) {
      into.push(key);
    }
  }
}

/**
 * The secret from `file`, or a new random one written there. Writing a temporary file and hard-linking it
 * into place means two processes starting together (API and worker) agree on one secret, and neither
 * can read a half-written file.
 */
async function loadOrCreateSigningKey(file: string): Promise<string> {
  const existing = await fs.readFile(file, 'utf8').catch(nullWhenMissing);
  if (existing !== null) return parseSigningKey(existing, file);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await fs.link(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await fs.rm(temp, { force: true });
  }
  return parseSigningKey(await fs.readFile(file, 'utf8'), file);
}

function parseSigningKey(text: string, file: string) {
  const secret = text.trim();
  if (secret.length < 32) throw new Error(`${file} holds fewer than 32 characters: delete it to have a new secret generated`);
  return secret;
}

const isMissing = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

function nullWhenMissing(err: unknown): null {
  if (isMissing(err)) return null;
  throw err;
}

/** A key that is only a folder (other keys below it) holds no object either. */
async function unlinkIfPresent(file: string) {
  try {
    await fs.unlink(file);
  } catch (err) {
    if (!isMissing(err) && (err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
  }
}

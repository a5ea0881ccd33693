import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Client, CopyDestinationOptions, CopySourceOptions, S3Error } from 'minio';
import {
  ObjectNotFoundError,
  StorageUnavailableError,
  type ByteRange,
  type ListedObject,
  type ObjectStat,
  type ObjectStore,
  type PresignedRequest,
} from './object-store.ts';
import { isUnreachable } from '../net/backend-outage.ts';
import { assertByteRange, assertPresignExpiry, assertSafeKey, assertSafePrefix } from './validation.ts';

export interface S3Settings {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

/**
 * Parts are held in memory PARTS_IN_FLIGHT at a time (plus the next one being read), so this bounds what
 * an upload costs: 40 MB. Parts grow every 1,000 so that S3's 10,000-part limit still allows objects of
 * about 440 GB. (The AWS CLI's defaults are alike: 8 MB parts, 10 at a time.)
 */
const FIRST_PART_BYTES = 8 * 1024 * 1024;
const PARTS_PER_SIZE_STEP = 1000;
const MAX_PARTS = 10_000;
/** Parts uploading at once: with the one being read, what an upload holds in memory. */
const PARTS_IN_FLIGHT = 4;
const partBytes = (partNumber: number) => FIRST_PART_BYTES * (1 + Math.floor((partNumber - 1) / PARTS_PER_SIZE_STEP));

/** S3's limit per DeleteObjects request. */
const DELETE_BATCH = 1000;
/** S3's limit for one CopyObject request (5 GiB); larger objects are copied in parts. */
const MAX_SINGLE_COPY_BYTES = 5 * 1024 ** 3;

/** MinIO or any S3-compatible store. */
export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;
  private readonly client: Client;
  private readonly bucket: string;
  private readonly signsPayload: boolean;

  constructor(private readonly settings: S3Settings) {
    const url = new URL(settings.endpoint);
    this.bucket = settings.bucket;
    this.signsPayload = url.protocol !== 'https:';
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      useSSL: url.protocol === 'https:',
      accessKey: settings.accessKey,
      secretKey: settings.secretKey,
      // Without a region the client asks the server for one before it signs anything.
      region: settings.region,
    });
  }

  async ensureReady() {
    if (!(await this.client.bucketExists(this.settings.bucket))) {
      await this.client.makeBucket(this.settings.bucket, this.settings.region);
    }
  }

  async isHealthy() {
    try {
      return await this.client.bucketExists(this.settings.bucket);
    } catch {
      return false;
    }
  }

  // What the service calls: a store that cannot be reached is StorageUnavailableError (a 503), not a bug.
  put(key: string, body: Readable, meta: { contentType?: string } = {}) {
    return reachable(() => this.putUnguarded(key, body, meta));
  }

  stat(key: string) {
    return reachable(() => this.statUnguarded(key));
  }

  read(key: string, range?: ByteRange) {
    return reachable(() => this.readUnguarded(key, range));
  }

  move(from: string, to: string) {
    return reachable(() => this.moveUnguarded(from, to));
  }

  remove(key: string) {
    return reachable(() => this.removeUnguarded(key));
  }

  removePrefix(prefix: string) {
    return reachable(() => this.removePrefixUnguarded(prefix));
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    try {
      yield* this.listUnguarded(prefix);
    } catch (err) {
      throw unreachableAsUnavailable(err);
    }
  }

  /**
   * A body that fits in one part is one PutObject; a larger one is a multipart upload whose parts are cut
   * here rather than by the client's putObject, which for a stream of unknown size buffers 528 MB parts,
   * never settles when the source fails, and resumes whatever earlier upload of the key it finds.
   * Either way the object appears whole at the end (PutObject and CompleteMultipartUpload are atomic).
   */
  private async putUnguarded(key: string, body: Readable, meta: { contentType?: string } = {}) {
    try {
      assertSafeKey(key);
    } catch (err) {
      body.destroy(); // a source nobody will read, such as a request body, must not stay open
      throw err;
    }
    const headers = meta.contentType === undefined ? {} : { 'Content-Type': meta.contentType };
    const parts = partsOf(body)[Symbol.asyncIterator]();
    const first = (await parts.next()).value as Buffer;
    const next = await parts.next();
    if (next.done) {
      await this.client.putObject(this.bucket, key, first, first.length, headers);
      return { size: first.length };
    }

    const uploadId = await this.client.initiateNewMultipartUpload(this.bucket, key, headers);
    const uploads: Promise<{ part: number; etag: string }>[] = [];
    try {
      let size = 0;
      let partNumber = 0;
      for await (const part of resumed(first, next.value as Buffer, parts)) {
        if (++partNumber > MAX_PARTS) throw new Error(`${key}: more than ${MAX_PARTS} parts, the S3 limit`);
        size += part.length;
        const upload = this.uploadPart(key, uploadId, partNumber, part);
        // Awaited below; one that fails meanwhile must not be an unhandled rejection.
        upload.catch(() => undefined);
        uploads.push(upload);
        // One stream to the store runs at the store's pace for one connection, and hashing a part takes a
        // core: a few parts upload side by side while the source flows into the next.
        if (uploads.length >= PARTS_IN_FLIGHT) await uploads[uploads.length - PARTS_IN_FLIGHT];
      }
      await this.client.completeMultipartUpload(this.bucket, key, uploadId, await Promise.all(uploads));
      return { size };
    } catch (err) {
      body.destroy();
      // An abort while parts still upload would race them; a bucket lifecycle rule for incomplete
      // uploads is the backstop when the abort fails too.
      await Promise.allSettled(uploads);
      await this.client.abortMultipartUpload(this.bucket, key, uploadId).catch(() => undefined);
      throw err;
    }
  }

  private async statUnguarded(key: string): Promise<ObjectStat | null> {
    assertSafeKey(key);
    try {
      const stat = await this.client.statObject(this.bucket, key);
      return { size: stat.size, contentType: stat.metaData['content-type'] ?? null };
    } catch (err) {
      if (err instanceof S3Error && err.code === 'NotFound') return null;
      throw err;
    }
  }

  private async readUnguarded(key: string, range?: ByteRange): Promise<Readable> {
    assertSafeKey(key);
    if (range) assertByteRange(range);
    try {
      return range
        ? await this.client.getPartialObject(this.bucket, key, range.start, range.end - range.start + 1)
        : await this.client.getObject(this.bucket, key);
    } catch (err) {
      if (err instanceof S3Error && err.code === 'NoSuchKey') throw new ObjectNotFoundError(key);
      if (err instanceof S3Error && err.code === 'InvalidRange') {
        throw new RangeError(`range starts at ${range!.start}, past the end of ${key}`, { cause: err });
      }
      throw err;
    }
  }

  /** A server-side copy (no byte passes through here), in parts beyond what one CopyObject takes. */
  private async moveUnguarded(from: string, to: string) {
    assertSafeKey(from);
    assertSafeKey(to);
    const stat = await this.stat(from);
    if (!stat) throw new ObjectNotFoundError(from);
    const source = new CopySourceOptions({ Bucket: this.bucket, Object: from });
    const headers: Record<string, string> = stat.contentType ? { 'Content-Type': stat.contentType } : {};
    const target = new CopyDestinationOptions({ Bucket: this.bucket, Object: to, MetadataDirective: 'REPLACE', Headers: headers });
    if (stat.size <= MAX_SINGLE_COPY_BYTES) await this.client.copyObject(source, target);
    else await this.client.composeObject(target, [source]);
    await this.client.removeObject(this.bucket, from);
  }

  private async removeUnguarded(key: string) {
    assertSafeKey(key);
    // S3 answers a delete of a missing key with success.
    await this.client.removeObject(this.bucket, key);
  }

  private async *listUnguarded(prefix: string): AsyncIterable<ListedObject> {
    assertSafePrefix(prefix);
    for await (const item of this.client.listObjectsV2(this.bucket, prefix, true)) {
      if (item.name !== undefined) yield { key: item.name, size: item.size, lastModified: item.lastModified };
    }
  }

  private async removePrefixUnguarded(prefix: string) {
    assertSafePrefix(prefix);
    // Deleting behind the listing is safe: S3 continues a listing after the last key it returned.
    let batch: string[] = [];
    for await (const item of this.client.listObjectsV2(this.bucket, prefix, true)) {
      if (item.name === undefined) continue;
      batch.push(item.name);
      if (batch.length === DELETE_BATCH) {
        await this.removeBatch(batch);
        batch = [];
      }
    }
    if (batch.length) await this.removeBatch(batch);
  }

  /**
   * The client's query-string signature covers only the method, key, expiry and host: the Content-Type
   * the client is told to send is stored with the object but not enforced by S3.
   */
  async presignPut(key: string, options: { contentType: string; expiresInSeconds: number }): Promise<PresignedRequest> {
    assertSafeKey(key);
    assertPresignExpiry(options.expiresInSeconds);
    const signedAt = new Date();
    const url = await this.client.presignedUrl('PUT', this.bucket, key, options.expiresInSeconds, {}, signedAt);
    return {
      url,
      method: 'PUT',
      headers: { 'Content-Type': options.contentType },
      // X-Amz-Date has whole seconds, and the expiry counts from it.
      expiresAt: new Date(Math.floor(signedAt.getTime() / 1000) * 1000 + options.expiresInSeconds * 1000),
    };
  }

  private async uploadPart(key: string, uploadId: string, partNumber: number, part: Buffer) {
    // Over https the client signs UNSIGNED-PAYLOAD, so without an MD5 nothing would catch a corrupted part;
    // over http it signs the part's sha256, which already does.
    const headers: Record<string, string> = this.signsPayload ? {} : { 'Content-MD5': createHash('md5').update(part).digest('base64') };
    const { etag } = await this.client.uploadPart(
      { bucketName: this.bucket, objectName: key, uploadID: uploadId, partNumber, headers },
      part,
    );
    return { part: partNumber, etag };
  }

  private async removeBatch(keys: string[]) {
    const results = (await this.client.removeObjects(this.bucket, keys)) as unknown[];
    // The typings promise `{Error}` entries; the parser returns the errors themselves.
    const failed = results
      .map((r) => ((r as { Error?: unknown } | null)?.Error ?? r) as { Code?: string; Key?: string } | null)
      .filter((e) => e?.Code);
    if (failed.length) {
      throw new Error(`could not remove ${failed.length} objects, e.g. ${failed[0]!.Key}: ${failed[0]!.Code}`);
    }
  }
}

/** The parts again, from the two already taken. */
async function* resumed(first: Buffer, second: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  yield second;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/**
 * The body cut into parts of `partBytes(n)` bytes; the last may be shorter. An empty body is one empty
 * part, so the caller always gets at least one.
 */
async function* partsOf(body: Readable): AsyncGenerator<Buffer> {
  let partNumber = 1;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of body) {
    let buf: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    while (pendingBytes + buf.length >= partBytes(partNumber)) {
      const take = partBytes(partNumber) - pendingBytes;
      pending.push(buf.subarray(0, take));
      buf = buf.subarray(take);
      yield Buffer.concat(pending);
      partNumber++;
      pending = [];
      pendingBytes = 0;
    }
    if (buf.length) {
      pending.push(buf);
      pendingBytes += buf.length;
    }
  }
  if (pendingBytes > 0 || partNumber === 1) yield Buffer.concat(pending);
}

/** A store that could not be reached, rather than one that refused the request. */
function unreachableAsUnavailable(err: unknown): unknown {
  return isUnreachable(err) ? new StorageUnavailableError(err) : err;
}

async function reachable<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw unreachableAsUnavailable(err);
  }
}

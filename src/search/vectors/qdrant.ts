import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import type {
  IndexName,
  IndexStats,
  StoredPoint,
  VectorFilter,
  VectorHit,
  VectorIndex,
  VectorPayload,
  VectorPoint,
} from './vector-index.ts';
import { isUuid } from '../../domain/ids.ts';
import { isUnreachable } from '../../net/backend-outage.ts';

export interface QdrantSettings {
  url: string;
  apiKey?: string;
  /** Collections are `${collectionPrefix}${index}`; tests use a unique prefix per run. */
  collectionPrefix?: string;
  /** Per request; a bulk upsert of 256 points of 384 dimensions is well under a second. */
  timeoutMs?: number;
}

type Filter = Schemas['Filter'];
type Condition = Schemas['Condition'];
type PointId = Schemas['ExtendedPointId'];

const UPSERT_BATCH = 256;
const DELETE_BATCH = 1000;
/** How many ids one scroll request skips when browsing far into an index. */
const SKIP_BATCH = 1000;
const HEALTH_TIMEOUT_MS = 2000;

/** Every field a filter or a delete names is indexed, so Qdrant filters inside HNSW instead of scanning payloads. */
const PAYLOAD_INDEXES: [string, Schemas['PayloadFieldSchema']][] = [
  ['datasetId', 'keyword'],
  ['orgId', 'keyword'],
  ['resourceId', 'keyword'],
  ['private', 'bool'],
  ['groups', 'keyword'],
  ['tags', 'keyword'],
  ['formats', 'keyword'],
  ['license', 'keyword'],
  // For browse: with this index a text condition matches lowercased words, not arbitrary substrings.
  ['text', { type: 'text', tokenizer: 'word', lowercase: true }],
];

/**
 * A failed Qdrant call, described without the request (so never with the API key). `unreachable`: Qdrant
 * could not be reached, did not answer in time, or answered as a server that is down (502–504), so the
 * same call may succeed later.
 */
export class VectorIndexError extends Error {
  override name = 'VectorIndexError';
  constructor(
    message: string,
    readonly unreachable = false,
  ) {
    super(message);
  }
}

/** A filter with an empty list (`datasetIds: []`) matches no point: the search answers [] without a request. */
export const MATCHES_NOTHING = Symbol('matches nothing');

/**
 * VectorFilter → Qdrant filter. Lists are ANDed as `must` conditions, each a `match: {any}` (any value
 * of the list, and for array fields any element); the visibility rule is one nested `should`.
 */
export function toQdrantFilter(filter: VectorFilter): Filter | typeof MATCHES_NOTHING {
  const must: Condition[] = [];
  const mustNot: Condition[] = [];
  if (filter.privateOrgIds !== 'all') {
    const isPublic: Condition = { key: 'private', match: { value: false } };
    must.push(filter.privateOrgIds.length ? { should: [isPublic, { key: 'orgId', match: { any: filter.privateOrgIds } }] } : isPublic);
  }
  const anyOf: [string, string[] | undefined][] = [
    ['datasetId', filter.datasetIds],
    ['orgId', filter.orgIds],
    ['groups', filter.groups],
    ['tags', filter.tags],
    ['formats', filter.formats],
    ['license', filter.licenses],
  ];
  for (const [key, values] of anyOf) {
    if (values === undefined) continue;
    if (values.length === 0) return MATCHES_NOTHING;
    must.push({ key, match: { any: values } });
  }
  // must_not rather than `except`: a point without an organization is not in the excluded list, so it stays.
  if (filter.excludeOrgIds?.length) mustNot.push({ key: 'orgId', match: { any: filter.excludeOrgIds } });
  return { ...(must.length ? { must } : {}), ...(mustNot.length ? { must_not: mustNot } : {}) };
}

/** Qdrant as the vector index: one Cosine collection per index, the filter evaluated by Qdrant during the search. */
export class QdrantVectorIndex implements VectorIndex {
  readonly kind = 'qdrant' as const;
  private readonly client: QdrantClient;
  private readonly healthClient: QdrantClient;
  private readonly prefix: string;
  private readonly apiKey: string | undefined;

  constructor(settings: QdrantSettings) {
    // checkCompatibility off: it fires a request at construction and only warns on the console. The key
    // goes in as a header, not `apiKey`, for the same reason: the client console.warns on every construction
    // over plain http, which is how a compose network or cluster reaches Qdrant.
    const common = { url: settings.url, headers: settings.apiKey ? { 'api-key': settings.apiKey } : {}, checkCompatibility: false };
    this.client = new QdrantClient({ ...common, timeout: settings.timeoutMs ?? 30_000 });
    this.healthClient = new QdrantClient({ ...common, timeout: HEALTH_TIMEOUT_MS });
    this.prefix = settings.collectionPrefix ?? 'almanac_';
    this.apiKey = settings.apiKey;
  }

  collectionName(index: IndexName) {
    return `${this.prefix}${index}`;
  }

  async ensure(index: IndexName, dimensions: number) {
    const name = this.collectionName(index);
    let info = await this.collectionInfo(name);
    if (info && vectorSize(info) !== dimensions) {
      await this.call('delete collection', name, () => this.client.deleteCollection(name));
      info = null;
    }
    const indexed = info ? info.payload_schema : await this.createCollection(name, dimensions);
    for (const [field, schema] of PAYLOAD_INDEXES) {
      if (indexed[field]) continue;
      await this.call('create payload index', name, () =>
        this.client.createPayloadIndex(name, { field_name: field, field_schema: schema, wait: true }),
      );
    }
  }

  /** Creates the collection; answers the payload indexes it already has (none, unless another process raced us). */
  private async createCollection(name: string, dimensions: number): Promise<Schemas['CollectionInfo']['payload_schema']> {
    try {
      await this.call('create collection', name, () =>
        this.client.createCollection(name, { vectors: { size: dimensions, distance: 'Cosine' } }),
      );
      return {};
    } catch (err) {
      // Another process may have created it between our look and our create: fine if it has our size.
      const raced = await this.collectionInfo(name);
      if (!raced || vectorSize(raced) !== dimensions) throw err;
      return raced.payload_schema;
    }
  }

  async upsert(index: IndexName, points: VectorPoint[]) {
    const name = this.collectionName(index);
    for (let i = 0; i < points.length; i += UPSERT_BATCH) {
      const batch = points
        .slice(i, i + UPSERT_BATCH)
        .map((point) => ({ id: point.id, vector: Array.from(point.vector), payload: { ...point.payload } }));
      await this.call('upsert', name, () => this.client.upsert(name, { wait: true, points: batch }));
    }
  }

  async deleteIds(index: IndexName, ids: string[]) {
    const name = this.collectionName(index);
    // A non-UUID cannot be stored, and Qdrant would refuse the whole request for it.
    const valid = ids.filter(isUuid);
    for (let i = 0; i < valid.length; i += DELETE_BATCH) {
      const batch = valid.slice(i, i + DELETE_BATCH);
      await this.callUnlessMissing('delete points', name, () => this.client.delete(name, { wait: true, points: batch }), undefined);
    }
  }

  async deleteByDataset(index: IndexName, datasetId: string) {
    await this.deleteWhere(index, { must: [{ key: 'datasetId', match: { value: datasetId } }] });
  }

  async deleteByResource(index: IndexName, resourceId: string) {
    await this.deleteWhere(index, { must: [{ key: 'resourceId', match: { value: resourceId } }] });
  }

  async search(index: IndexName, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    const qdrantFilter = toQdrantFilter(filter);
    if (qdrantFilter === MATCHES_NOTHING || limit < 1) return [];
    const name = this.collectionName(index);
    const found = await this.callUnlessMissing(
      'search',
      name,
      () => this.client.query(name, { query: Array.from(vector), filter: qdrantFilter, limit, with_payload: true, with_vector: false }),
      { points: [] },
    );
    return found.points.map((point) => ({ id: String(point.id), score: point.score, payload: toPayload(point.payload) }));
  }

  async get(index: IndexName, id: string): Promise<StoredPoint | null> {
    if (!isUuid(id)) return null;
    const name = this.collectionName(index);
    const records = await this.callUnlessMissing(
      'get',
      name,
      () => this.client.retrieve(name, { ids: [id], with_payload: true, with_vector: false }),
      [],
    );
    return records.length ? { id: String(records[0].id), payload: toPayload(records[0].payload) } : null;
  }

  async browse(index: IndexName, options: { offset: number; limit: number; text?: string }) {
    const name = this.collectionName(index);
    const text = options.text?.trim();
    const filter: Filter | undefined = text ? { must: [{ key: 'text', match: { text } }] } : undefined;
    const counted = await this.callUnlessMissing('count', name, () => this.client.count(name, { filter, exact: true }), { count: 0 });
    const total = counted.count;
    if (options.offset >= total || options.limit < 1) return { total, points: [] };
    // Scroll goes by id; skipping without payloads keeps a deep page cheap for an admin listing.
    let cursor: PointId | undefined;
    for (let skipped = 0; skipped < options.offset;) {
      const step = Math.min(options.offset - skipped, SKIP_BATCH);
      const page = await this.scroll(name, { filter, limit: step, offset: cursor, with_payload: false });
      skipped += page.points.length;
      cursor = nextOffset(page);
      if (cursor === undefined) return { total, points: [] };
    }
    const page = await this.scroll(name, { filter, limit: options.limit, offset: cursor, with_payload: true });
    return { total, points: page.points.map((record) => ({ id: String(record.id), payload: toPayload(record.payload) })) };
  }

  async stats(index: IndexName): Promise<IndexStats> {
    const name = this.collectionName(index);
    const info = await this.collectionInfo(name);
    if (!info) return { points: 0, dimensions: null, bytes: null };
    // The collection's points_count is approximate; an exact count is what the admin page promises.
    const { count } = await this.call('count', name, () => this.client.count(name, { exact: true }));
    return { points: count, dimensions: vectorSize(info) ?? null, bytes: null };
  }

  async healthy() {
    try {
      await this.healthClient.getCollections();
      return true;
    } catch {
      return false;
    }
  }

  async close() {}

  private async deleteWhere(index: IndexName, filter: Filter) {
    const name = this.collectionName(index);
    await this.callUnlessMissing('delete points', name, () => this.client.delete(name, { wait: true, filter }), undefined);
  }

  private scroll(name: string, request: Schemas['ScrollRequest']) {
    return this.callUnlessMissing('scroll', name, () => this.client.scroll(name, { ...request, with_vector: false }), {
      points: [],
    } as Schemas['ScrollResult']);
  }

  private collectionInfo(name: string) {
    return this.callUnlessMissing('get collection', name, () => this.client.getCollection(name), null);
  }

  /** A missing collection is an empty index to readers and deleters (ensure not yet called, or dropped). */
  private async callUnlessMissing<T, M>(operation: string, collection: string, run: () => Promise<T>, missing: M): Promise<T | M> {
    try {
      return await run();
    } catch (err) {
      if (statusOf(err) === 404) return missing;
      throw this.failure(operation, collection, err);
    }
  }

  private async call<T>(operation: string, collection: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw this.failure(operation, collection, err);
    }
  }

  private failure(operation: string, collection: string, err: unknown) {
    let message = `Qdrant ${operation} on ${collection} failed: ${describe(err)}`;
    // Qdrant does not echo headers, but a proxy in front of it might; the key must never reach a log.
    if (this.apiKey) message = message.split(this.apiKey).join('[redacted]');
    const status = statusOf(err);
    // No answer within the client's timeout is Qdrant out of reach for now, as a refused connection is.
    const timedOut = err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
    return new VectorIndexError(message, timedOut || isUnreachable(err) || (status !== undefined && status >= 502 && status <= 504));
  }
}

function vectorSize(info: Schemas['CollectionInfo']): number | undefined {
  const vectors = info.config.params.vectors;
  return vectors && typeof vectors.size === 'number' ? vectors.size : undefined;
}

function nextOffset(page: Schemas['ScrollResult']): PointId | undefined {
  const next = page.next_page_offset;
  return typeof next === 'string' || typeof next === 'number' ? next : undefined;
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const status = statusOf(err);
  if (status !== undefined) {
    // Qdrant's error body is {"status": {"error": "..."}}.
    const data = (err as { data?: { status?: { error?: unknown } } }).data;
    const reason = typeof data?.status?.error === 'string' ? data.status.error : err.message;
    return `${status} ${reason}`;
  }
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `${err.message} (${code})` : err.message;
}

function toPayload(raw: Record<string, unknown> | null | undefined): VectorPayload {
  const p = (raw ?? {}) as Partial<VectorPayload>;
  const payload: VectorPayload = {
    datasetId: String(p.datasetId ?? ''),
    orgId: p.orgId ?? null,
    private: p.private === true,
    groups: p.groups ?? [],
    tags: p.tags ?? [],
    formats: p.formats ?? [],
    license: p.license ?? null,
    text: p.text ?? '',
  };
  if (p.resourceId != null) payload.resourceId = p.resourceId;
  if (p.chunk != null) payload.chunk = p.chunk;
  return payload;
}

/**
 * The vector side of search: three indexes, each a set of points (a vector plus the payload that the
 * search filters need). Adapters: Qdrant (qdrant.ts) and an in-process index (embedded.ts); one
 * contract test suite runs against both. Postgres keeps the vectors too, so either can be rebuilt.
 */
export const INDEX_NAMES = ['packages', 'resources', 'contents'] as const;
export type IndexName = (typeof INDEX_NAMES)[number];

/** What every point carries: its dataset's filterable fields, and the text it was embedded from. */
export interface VectorPayload {
  datasetId: string;
  /** The owning organization's id. */
  orgId: string | null;
  private: boolean;
  /** Category ids. */
  groups: string[];
  /** Tag names. */
  tags: string[];
  /** Resource formats in the dataset, upper case. */
  formats: string[];
  license: string | null;
  /** For `resources` and `contents` points. */
  resourceId?: string;
  /** For `contents` points: the chunk's position in the resource's text. */
  chunk?: number;
  /** The embedded text (shown by the admin endpoints and as a match snippet). */
  text: string;
}

export interface VectorPoint {
  /** A UUID (Qdrant accepts only UUIDs and integers). */
  id: string;
  vector: Float32Array;
  payload: VectorPayload;
}

/**
 * Conditions ANDed together; within one list, any value matches. Absent means no condition; an empty
 * list matches no point (except `excludeOrgIds: []`, which excludes none).
 * `privateOrgIds` is the visibility rule: a private point passes only when its organization is listed
 * ('all' for sysadmins); public points always pass.
 */
export interface VectorFilter {
  privateOrgIds: string[] | 'all';
  datasetIds?: string[];
  orgIds?: string[];
  excludeOrgIds?: string[];
  groups?: string[];
  tags?: string[];
  formats?: string[];
  licenses?: string[];
}

export interface VectorHit {
  id: string;
  /** Cosine similarity, higher is closer. */
  score: number;
  payload: VectorPayload;
}

export interface StoredPoint {
  id: string;
  payload: VectorPayload;
}

export interface IndexStats {
  points: number;
  dimensions: number | null;
  /** Approximate memory or disk size, when the engine says. */
  bytes: number | null;
}

export interface VectorIndex {
  readonly kind: 'qdrant' | 'embedded';
  /** Creates the index for vectors of this length; an index of another length is dropped and re-created. */
  ensure(index: IndexName, dimensions: number): Promise<void>;
  upsert(index: IndexName, points: VectorPoint[]): Promise<void>;
  deleteIds(index: IndexName, ids: string[]): Promise<void>;
  deleteByDataset(index: IndexName, datasetId: string): Promise<void>;
  deleteByResource(index: IndexName, resourceId: string): Promise<void>;
  /** The `limit` nearest points that pass the filter, closest first: the filter applies inside the search. */
  search(index: IndexName, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]>;
  get(index: IndexName, id: string): Promise<StoredPoint | null>;
  /**
   * Points in a stable order (by id), optionally only those whose text contains `text` (case-insensitive).
   * Embedded: any substring. Qdrant: through its full-text index, i.e. every word of `text` is a word of the text.
   */
  browse(index: IndexName, options: { offset: number; limit: number; text?: string }): Promise<{ total: number; points: StoredPoint[] }>;
  stats(index: IndexName): Promise<IndexStats>;
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

import type { ColumnSchema, ColumnType, TableSchema } from '../../tabular/column-schema.ts';

/**
 * What changed between two versions' schemas, judged as someone whose script reads the data would feel it
 * (issue 30 §3). A change is **breaking** when a script that worked on the old version can fail or silently
 * read something else on the new one, else **compatible**:
 * - a column removed or renamed is breaking: whatever names it is gone;
 * - a column added is compatible, wherever it lands, and so is a column moved: every way Almanac serves the
 *   data (SQL, the DataStore, exports with their header) names columns, and a reader that counted positions
 *   was already broken by an added column;
 * - a retyped column is breaking, integer → float included: its values need no longer be whole, so `int()`,
 *   integer parsers and integer keys fail, and integers beyond 2^53 come back rounded. Float → integer is
 *   compatible, since every whole number is one a float reader takes;
 * - nulls appearing in a column that had none are breaking: a script that did arithmetic or parsed every value
 *   meets an empty one.
 * An old version without rows (a header alone) had its types guessed from nothing and no value to rely on:
 * its retypes are compatible and nulls appearing are not listed.
 *
 * A renamed column is one that kept its values under a new name (same fingerprint, same type). At the same
 * position that is enough; elsewhere the fingerprint must belong to no other column of either version, so
 * that two columns that happen to hold alike values are not taken for each other. A column without any
 * value (all null, or no rows) never counts as renamed: its fingerprint tells only the row count. Nor does
 * one whose schema predates fingerprints (or another DuckDB's hash): it is removed and another added, which
 * is just as breaking. Fingerprints cover the preview, so a rename of a file longer than it is told by its
 * first 50 MB.
 * Changes of values alone (rows added, ranges moved) are what a new version is for, and are not listed.
 */

export type SchemaChangeImpact = 'breaking' | 'compatible';

interface ColumnChange {
  /** The column's name in the new version; for a removed column, in the old one. */
  column: string;
  /** Its index in the new version's columns, from 0; for a removed column, in the old one's. */
  position: number;
  impact: SchemaChangeImpact;
}

export type SchemaChange =
  | (ColumnChange & { kind: 'added'; type: ColumnType })
  | (ColumnChange & { kind: 'removed'; type: ColumnType })
  | (ColumnChange & { kind: 'renamed'; previousName: string; previousPosition: number })
  | (ColumnChange & { kind: 'moved'; previousPosition: number })
  | (ColumnChange & { kind: 'retyped'; type: ColumnType; previousType: ColumnType })
  | (ColumnChange & { kind: 'nullsAppeared'; nullCount: number });

export interface SchemaDiff {
  /** Whether any change is breaking. */
  breaking: boolean;
  /** Removed columns first, in their old order; then each new column's changes, in the new order. */
  changes: SchemaChange[];
}

/** An old column and the new column it became, by name or by rename. */
interface Pair {
  before: number;
  after: number;
  renamed: boolean;
}

export function diffSchemas(before: TableSchema, after: TableSchema): SchemaDiff {
  const pairs = pairColumns(before, after);
  const pairOfAfter = new Map(pairs.map((pair) => [pair.after, pair]));
  const pairedBefore = new Set(pairs.map((pair) => pair.before));
  const stayedInOrder = inOrder(pairs);
  const hadRows = before.rowCount > 0;
  const changes: SchemaChange[] = [];
  before.columns.forEach((column, position) => {
    if (pairedBefore.has(position)) return;
    changes.push({ kind: 'removed', column: column.name, position, type: column.type, impact: 'breaking' });
  });
  after.columns.forEach((column, position) => {
    const pair = pairOfAfter.get(position);
    const change = { column: column.name, position };
    if (!pair) {
      changes.push({ kind: 'added', ...change, type: column.type, impact: 'compatible' });
      return;
    }
    const old = before.columns[pair.before]!;
    if (pair.renamed) {
      changes.push({ kind: 'renamed', ...change, previousName: old.name, previousPosition: pair.before, impact: 'breaking' });
    } else if (!stayedInOrder.has(pair)) {
      changes.push({ kind: 'moved', ...change, previousPosition: pair.before, impact: 'compatible' });
    }
    if (old.type !== column.type) {
      const impact = hadRows ? retypeImpact(old.type, column.type) : 'compatible';
      changes.push({ kind: 'retyped', ...change, type: column.type, previousType: old.type, impact });
    }
    if (hadRows && old.nullCount === 0 && column.nullCount > 0) {
      changes.push({ kind: 'nullsAppeared', ...change, nullCount: column.nullCount, impact: 'breaking' });
    }
  });
  return { breaking: changes.some((change) => change.impact === 'breaking'), changes };
}

function retypeImpact(from: ColumnType, to: ColumnType): SchemaChangeImpact {
  return from === 'float' && to === 'integer' ? 'compatible' : 'breaking';
}

/** Same name first; then, among the columns left, renames at the same position; then unambiguous ones elsewhere. */
function pairColumns(before: TableSchema, after: TableSchema): Pair[] {
  const afterByName = new Map(after.columns.map((column, position) => [column.name, position]));
  const pairs: Pair[] = [];
  before.columns.forEach((column, position) => {
    const match = afterByName.get(column.name);
    if (match !== undefined) pairs.push({ before: position, after: match, renamed: false });
  });
  const named = { before: new Set(pairs.map((pair) => pair.before)), after: new Set(pairs.map((pair) => pair.after)) };
  const removed = new Set(positionsOf(before).filter((i) => !named.before.has(i)));
  const added = new Set(positionsOf(after).filter((i) => !named.after.has(i)));
  const rename = (from: number, to: number) => {
    pairs.push({ before: from, after: to, renamed: true });
    removed.delete(from);
    added.delete(to);
  };
  const sameValues = (from: number, to: number) =>
    holdsValues(before, from) && holdsValues(after, to) && sameFingerprintAndType(before.columns[from]!, after.columns[to]!);
  for (const from of removed) {
    if (added.has(from) && sameValues(from, from)) rename(from, from);
  }
  const shared = fingerprintCounts([...before.columns, ...after.columns]);
  for (const from of removed) {
    const fingerprint = before.columns[from]!.fingerprint;
    if (fingerprint === undefined || shared.get(fingerprint) !== 2) continue;
    const to = [...added].find((i) => after.columns[i]!.fingerprint === fingerprint);
    if (to !== undefined && sameValues(from, to)) rename(from, to);
  }
  return pairs;
}

const positionsOf = (schema: TableSchema) => schema.columns.map((_, position) => position);

function holdsValues(schema: TableSchema, position: number) {
  return schema.columns[position]!.nullCount < schema.rowCount;
}

function sameFingerprintAndType(a: ColumnSchema, b: ColumnSchema) {
  return a.fingerprint !== undefined && a.fingerprint === b.fingerprint && a.type === b.type;
}

function fingerprintCounts(columns: ColumnSchema[]) {
  const counts = new Map<string, number>();
  for (const { fingerprint } of columns) {
    if (fingerprint !== undefined) counts.set(fingerprint, (counts.get(fingerprint) ?? 0) + 1);
  }
  return counts;
}

/**
 * The pairs that kept their relative order: the longest run of them whose new positions rise with their old
 * ones. Every other pair moved; choosing the longest run names the fewest columns as moved (one of two
 * swapped columns, not every column after an inserted one).
 */
function inOrder(pairs: Pair[]): Set<Pair> {
  const sorted = [...pairs].sort((a, b) => a.before - b.before);
  // ends[k]: index into sorted of the last pair of the best rising run of length k + 1 found so far.
  const ends: number[] = [];
  const previous: number[] = [];
  sorted.forEach((pair, i) => {
    let low = 0;
    let high = ends.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[ends[middle]!]!.after < pair.after) low = middle + 1;
      else high = middle;
    }
    previous[i] = low > 0 ? ends[low - 1]! : -1;
    ends[low] = i;
  });
  const kept = new Set<Pair>();
  for (let i = ends.at(-1) ?? -1; i >= 0; i = previous[i]!) kept.add(sorted[i]!);
  return kept;
}

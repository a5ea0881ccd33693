/**
 * What an activity changed: its record against the one before it that the reader may see, field by
 * field, as `{path, before, after}`. Resources are matched by id (`resources.<id>.<field>`; a resource
 * added or removed is one change with a null side). The system's bookkeeping (`updatedAt`, a resource's
 * pipeline `extras`) is not a change anyone made, so it is left out.
 */
export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

type RecordLike = Record<string, unknown>;

const IGNORED = new Set(['updatedAt']);
/** Maps diffed key by key (`members.<userId>`), as resources are. */
const KEYED = new Set(['members']);
const IGNORED_IN_RESOURCE = new Set(['updatedAt', 'extras']);

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function fieldChanges(before: RecordLike, after: RecordLike, ignored: ReadonlySet<string>, prefix: string): FieldChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !ignored.has(k));
  return keys
    .filter((k) => !same(before[k], after[k]))
    .map((k) => ({ path: `${prefix}${k}`, before: before[k] ?? null, after: after[k] ?? null }));
}

const resourcesOf = (record: RecordLike | null) => (Array.isArray(record?.resources) ? (record.resources as RecordLike[]) : []);

/**
 * A keyed map's changes, entry by entry. A record that exists without the map (a group's snapshot from
 * before its members were recorded) tells nothing about it: no change is made up from it.
 */
function keyedChanges(key: string, before: RecordLike | null, after: RecordLike | null): FieldChange[] {
  if ((before && !(key in before)) || (after && !(key in after))) return [];
  const map = (r: RecordLike | null) => (r?.[key] ?? {}) as RecordLike;
  return fieldChanges(map(before), map(after), new Set(), `${key}.`);
}

/** `before` null: everything in `after` is new; `after` null: the record is gone. */
export function diffRecords(before: RecordLike | null, after: RecordLike | null): FieldChange[] {
  if (!before && !after) return [];
  const plain = (r: RecordLike | null) =>
    r ? Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'resources' && !KEYED.has(k))) : {};
  const changes = [...fieldChanges(plain(before), plain(after), IGNORED, ''), ...[...KEYED].flatMap((k) => keyedChanges(k, before, after))];
  const old = new Map(resourcesOf(before).map((r) => [String(r.id), r]));
  const now = new Map(resourcesOf(after).map((r) => [String(r.id), r]));
  for (const [id, r] of now) {
    const was = old.get(id);
    if (!was) changes.push({ path: `resources.${id}`, before: null, after: r });
    else changes.push(...fieldChanges(was, r, IGNORED_IN_RESOURCE, `resources.${id}.`));
  }
  for (const [id, r] of old) if (!now.has(id)) changes.push({ path: `resources.${id}`, before: r, after: null });
  return changes;
}

/**
 * package_revise's operations on a package dict, with the semantics of CKAN's
 * ckan/lib/navl/dictization_functions.py: keys as `__`-joined paths, a list item by its index (negative
 * from the end) or by the first five or more characters of its `id`; `match` compares, `filter` removes
 * by glob (`+` protects, the first matching pattern wins), `update` merges (dicts key by key, lists item
 * by item, longer lists appended), `<path>__extend` appends to a list.
 */

type Value = unknown;
type Dict = Record<string, Value>;
type Path = Array<string | number>;

export class ReviseError extends Error {}

const isDict = (v: Value): v is Dict => v !== null && typeof v === 'object' && !Array.isArray(v);
const joined = (path: Path) => path.map(String).join('__');

/** Deep equality as Python compares JSON values. */
function same(a: Value, b: Value): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isDict(a) && isDict(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return a === b;
}

/** The paths of `select` whose values differ from (or are missing in) `data`. */
export function unmatched(data: Value, select: Value, parent: Path = []): Path[] {
  if (isDict(select)) {
    if (!isDict(data)) return [parent];
    return Object.keys(select)
      .sort()
      .flatMap((k) => (Object.hasOwn(data, k) ? compare(data[k], select[k], [...parent, k]) : [[...parent, k]]));
  }
  if (Array.isArray(select)) {
    if (!Array.isArray(data)) return [parent];
    return select.flatMap((v, i) => (i < data.length ? compare(data[i], v, [...parent, i]) : [[...parent, i]]));
  }
  return same(data, select) ? [] : [parent];
}

const compare = (data: Value, select: Value, path: Path): Path[] =>
  isDict(select) || Array.isArray(select) ? unmatched(data, select, path) : same(data, select) ? [] : [path];

/** One step of a string key into a list: an index, or an id prefix of five characters or more. */
function listIndex(list: Value[], key: string, parent: Path): number {
  const fail = () => new ReviseError(`Unmatched key ${joined([...parent, key])}`);
  if (key.length >= 5) {
    const i = list.findIndex((item) => isDict(item) && typeof item.id === 'string' && item.id.startsWith(key));
    if (i < 0) throw fail();
    return i;
  }
  if (!/^-?\d+$/.test(key)) throw fail();
  const n = Number(key);
  if (n < -list.length || n >= list.length) throw fail();
  return n < 0 ? list.length + n : n;
}

/** The value a string key names, and its path. */
export function resolveKey(data: Value, stringKey: string): { value: Value; path: Path } {
  const path: Path = [];
  let current = data;
  for (const k of stringKey.split('__')) {
    if (isDict(current)) {
      if (!Object.hasOwn(current, k)) throw new ReviseError(`Unmatched key ${joined([...path, k])}`);
      path.push(k);
      current = current[k];
    } else if (Array.isArray(current)) {
      const i = listIndex(current, k, path);
      path.push(i);
      current = current[i];
    } else {
      throw new ReviseError(`Unmatched key ${joined([...path, k])}`);
    }
  }
  return { value: current, path };
}

export function unmatchedAt(data: Value, stringKey: string, value: Value): Path[] {
  const { value: current, path } = resolveKey(data, stringKey);
  return compare(current, value, path);
}

type Glob = { keep: boolean; parts: string[] };

/** Removes what the patterns name, in place; `+pattern` protects what a later `-pattern` would remove. */
export function filterGlobs(data: Value, patterns: string[]) {
  filterParsed(
    data,
    patterns.map((p) => ({ keep: p.startsWith('+'), parts: p.replace(/^[-+]+/, '').split('__') })),
  );
}

function filterParsed(data: Value, globs: Glob[]) {
  if (isDict(data)) {
    const protectedValues: Dict = {};
    const children = new Map<string, Glob[]>();
    for (const { keep, parts } of globs) {
      const [head, ...rest] = parts as [string, ...string[]];
      if (head === '*') {
        if (keep) Object.assign(protectedValues, data);
        else for (const k of Object.keys(data)) delete data[k];
        continue;
      }
      if (!Object.hasOwn(data, head)) continue;
      if (rest.length) children.set(head, [...(children.get(head) ?? []), { keep, parts: rest }]);
      else if (keep) protectedValues[head] = data[head];
      else delete data[head];
    }
    Object.assign(data, protectedValues);
    for (const [head, sub] of children) if (Object.hasOwn(data, head)) filterParsed(data[head], sub);
    return;
  }
  if (!Array.isArray(data)) return;
  const kept = new Set<number>();
  const removed = new Set<number>();
  const children = new Map<number, Glob[]>();
  for (const { keep, parts } of globs) {
    const [head, ...rest] = parts as [string, ...string[]];
    if (head === '*') {
      for (let i = 0; i < data.length; i++) if (keep ? !removed.has(i) : !kept.has(i)) (keep ? kept : removed).add(i);
      continue;
    }
    let index: number;
    try {
      index = listIndex(data, head, []);
    } catch {
      continue;
    }
    if (rest.length) children.set(index, [...(children.get(index) ?? []), { keep, parts: rest }]);
    else if (keep && !removed.has(index)) kept.add(index);
    else if (!keep && !kept.has(index)) removed.add(index);
  }
  const gone = new Set([...removed].filter((i) => !kept.has(i)));
  for (const [i, sub] of children) if (!gone.has(i)) filterParsed(data[i], sub);
  const rest = data.filter((_, i) => !gone.has(i));
  data.splice(0, data.length, ...rest);
}

/** Merges `update` into `data` in place. */
export function mergeDict(data: Dict, update: Value, parent: Path = []) {
  if (!isDict(update)) throw new ReviseError(`Expected dict for ${joined(parent)}`);
  for (const [k, v] of Object.entries(update)) {
    if (!Object.hasOwn(data, k)) data[k] = v;
    else if (isDict(data[k])) mergeDict(data[k], v, [...parent, k]);
    else if (Array.isArray(data[k])) mergeList(data[k], v, [...parent, k]);
    else data[k] = v;
  }
}

function mergeList(data: Value[], update: Value, parent: Path) {
  if (!Array.isArray(update)) throw new ReviseError(`Expected list for ${joined(parent)}`);
  update.forEach((v, i) => {
    if (i >= data.length) data.push(v);
    else if (isDict(data[i])) mergeDict(data[i] as Dict, v, [...parent, i]);
    else if (Array.isArray(data[i])) mergeList(data[i] as Value[], v, [...parent, i]);
    else data[i] = v;
  });
}

/** `update__<path>=value`: merged where the path leads; `<list>__extend` appends. */
export function mergeAt(data: Dict, stringKey: string, value: Value) {
  const parts = stringKey.split('__');
  const last = parts.pop()!;
  const { value: current, path } = parts.length ? resolveKey(data, parts.join('__')) : { value: data as Value, path: [] as Path };
  if (isDict(current)) return mergeDict(current, { [last]: value }, path);
  if (!Array.isArray(current)) throw new ReviseError(`Expected list or dict for ${joined(path)}`);
  if (last === 'extend') {
    if (!Array.isArray(value)) throw new ReviseError(`Expected list for ${joined(path)}`);
    current.push(...(value as Value[]));
    return;
  }
  const i = listIndex(current, last, path);
  if (isDict(current[i])) mergeDict(current[i] as Dict, value, [...path, i]);
  else if (Array.isArray(current[i])) mergeList(current[i] as Value[], value, [...path, i]);
  else current[i] = value;
}

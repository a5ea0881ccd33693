/**
 * The import map of the service's code (src/, activities/, workflows/, type imports included) has no
 * cycle: each layer can be read, tested and changed from the bottom up. The lint config keeps the
 * direction of the big ones (the domain imports no engine, HTTP or API code); this keeps every file's.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['src', 'activities', 'workflows'];
const IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

function importMap(): Map<string, string[]> {
  const files = FOLDERS.flatMap((folder) =>
    fs
      .readdirSync(path.join(ROOT, folder), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => path.join(folder, f)),
  );
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
      const targets = [...source.matchAll(IMPORT)].map((m) => path.join(path.dirname(file), m[1]!)).filter((t) => known.has(t));
      return [file, targets];
    }),
  );
}

/** Tarjan's strongly connected components of more than one file (or a file importing itself): the cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the finder sees a cycle when there is one', (t) => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  t.deepEqual(cycles(graph), [['a', 'b', 'c']]);
});

test('no file of src/, activities/ or workflows/ imports itself back through others', (t) => {
  const graph = importMap();
  t.true(graph.size > 100, `read ${graph.size} files`);
  t.deepEqual(cycles(graph), []);
});

test('src/domain imports nothing from src/temporal, src/http, src/api, src/mcp or src/runtime', (t) => {
  const outside = /^src\/(temporal|http|api|mcp|runtime)\//;
  const crossings = [...importMap()].flatMap(([file, targets]) =>
    file.startsWith('src/domain/') ? targets.filter((t) => outside.test(t)).map((t) => `${file} → ${t}`) : [],
  );
  t.deepEqual(crossings, []);
});

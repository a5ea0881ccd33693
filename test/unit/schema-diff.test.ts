/**
 * The schema diff between two versions of a resource (issue 30 §3): each kind of change, its class as a
 * reader of the data feels it, and renames told apart from a drop and an add only on real evidence.
 */
import test from 'ava';
import { diffSchemas } from '../../src/domain/pipeline/schema-diff.ts';
import type { ColumnSchema, ColumnType, TableSchema } from '../../src/tabular/column-schema.ts';

type Spec = [name: string, type: ColumnType, fingerprint?: string, nullCount?: number];

/** A 10-row schema; a column's fingerprint stands for its values. */
function schema(columns: Spec[], rowCount = 10): TableSchema {
  return {
    rowCount,
    previewTruncated: false,
    columns: columns.map(([name, type, fingerprint, nullCount = 0]) => {
      const column: ColumnSchema = { name, type, nullable: nullCount > 0, nullCount };
      if (fingerprint !== undefined) column.fingerprint = fingerprint;
      return column;
    }),
  };
}

const base: Spec[] = [
  ['id', 'integer', '11'],
  ['name', 'string', '22'],
  ['price', 'float', '33'],
];

test('the same schema is no change, and not breaking', (t) => {
  t.deepEqual(diffSchemas(schema(base), schema(base)), { breaking: false, changes: [] });
});

test('new values under the same names and types are no change', (t) => {
  const after = schema(
    [
      ['id', 'integer', '44'],
      ['name', 'string', '55'],
      ['price', 'float', '66'],
    ],
    500,
  );
  t.deepEqual(diffSchemas(schema(base), after), { breaking: false, changes: [] });
});

test('an added column is compatible, wherever it lands, and the columns it shifts did not move', (t) => {
  const after = schema([['note', 'string', '99'], ...base, ['tax', 'float', '98']]);
  t.deepEqual(diffSchemas(schema(base), after), {
    breaking: false,
    changes: [
      { kind: 'added', column: 'note', position: 0, type: 'string', impact: 'compatible' },
      { kind: 'added', column: 'tax', position: 4, type: 'float', impact: 'compatible' },
    ],
  });
});

test('a removed column is breaking', (t) => {
  const after = schema([base[0]!, base[2]!]);
  t.deepEqual(diffSchemas(schema(base), after), {
    breaking: true,
    changes: [{ kind: 'removed', column: 'name', position: 1, type: 'string', impact: 'breaking' }],
  });
});

test('the same values at the same position under a new name are a rename, and breaking', (t) => {
  const after = schema([base[0]!, ['label', 'string', '22'], base[2]!]);
  t.deepEqual(diffSchemas(schema(base), after), {
    breaking: true,
    changes: [{ kind: 'renamed', column: 'label', position: 1, previousName: 'name', previousPosition: 1, impact: 'breaking' }],
  });
});

test('a rename that also moved is found by its values when no other column holds them', (t) => {
  const after = schema([base[0]!, base[2]!, ['label', 'string', '22']]);
  t.deepEqual(diffSchemas(schema(base), after).changes, [
    { kind: 'renamed', column: 'label', position: 2, previousName: 'name', previousPosition: 1, impact: 'breaking' },
  ]);
});

test('a rename differing only in case is a rename: names are keys in every result', (t) => {
  const after = schema([['ID', 'integer', '11'], base[1]!, base[2]!]);
  t.like(diffSchemas(schema(base), after), { breaking: true, changes: [{ kind: 'renamed', column: 'ID', previousName: 'id' }] });
});

test('a new name over changed values is a removal and an addition, just as breaking', (t) => {
  const after = schema([base[0]!, ['label', 'string', '77'], base[2]!]);
  t.deepEqual(diffSchemas(schema(base), after), {
    breaking: true,
    changes: [
      { kind: 'removed', column: 'name', position: 1, type: 'string', impact: 'breaking' },
      { kind: 'added', column: 'label', position: 1, type: 'string', impact: 'compatible' },
    ],
  });
});

test('integer to float is breaking, float to integer compatible, and every other retype breaking', (t) => {
  const retype = (from: ColumnType, to: ColumnType) =>
    diffSchemas(schema([['v', from, '1']]), schema([['v', to, '2']])).changes.map(({ kind, impact }) => `${kind}:${impact}`);
  t.deepEqual(retype('integer', 'float'), ['retyped:breaking']);
  t.deepEqual(retype('float', 'integer'), ['retyped:compatible']);
  const types: ColumnType[] = ['integer', 'float', 'boolean', 'string'];
  for (const from of types) {
    for (const to of types) {
      if (from === to || (from === 'float' && to === 'integer')) continue;
      t.deepEqual(retype(from, to), ['retyped:breaking'], `${from} → ${to}`);
    }
  }
  t.deepEqual(diffSchemas(schema([['v', 'integer', '1']]), schema([['v', 'float', '2']])), {
    breaking: true,
    changes: [{ kind: 'retyped', column: 'v', position: 0, type: 'float', previousType: 'integer', impact: 'breaking' }],
  });
});

test('a retype to integer alone is not breaking', (t) => {
  const after = schema([base[0]!, base[1]!, ['price', 'integer', '34']]);
  t.like(diffSchemas(schema(base), after), { breaking: false, changes: [{ kind: 'retyped', impact: 'compatible' }] });
});

test('nulls appearing where there were none are breaking; more nulls, or fewer, are no change', (t) => {
  const before = schema([
    ['a', 'integer', '1'],
    ['b', 'integer', '2', 3],
    ['c', 'integer', '3', 3],
  ]);
  const after = schema([
    ['a', 'integer', '4', 2],
    ['b', 'integer', '5', 6],
    ['c', 'integer', '6'],
  ]);
  t.deepEqual(diffSchemas(before, after), {
    breaking: true,
    changes: [{ kind: 'nullsAppeared', column: 'a', position: 0, nullCount: 2, impact: 'breaking' }],
  });
});

test('two columns swapped: one of them moved, compatible', (t) => {
  const after = schema([base[1]!, base[0]!, base[2]!]);
  const diff = diffSchemas(schema(base), after);
  t.false(diff.breaking);
  t.is(diff.changes.length, 1);
  t.like(diff.changes[0], { kind: 'moved', impact: 'compatible' });
  const moved = diff.changes[0] as { column: string; position: number; previousPosition: number };
  t.deepEqual([moved.previousPosition, moved.position], moved.column === 'id' ? [0, 1] : [1, 0]);
});

test('a column moved to the front is the only one moved; reversed, all but one are', (t) => {
  const front = diffSchemas(schema(base), schema([base[2]!, base[0]!, base[1]!]));
  t.deepEqual(front, {
    breaking: false,
    changes: [{ kind: 'moved', column: 'price', position: 0, previousPosition: 2, impact: 'compatible' }],
  });
  const reversed = diffSchemas(schema(base), schema([...base].reverse()));
  t.deepEqual(
    reversed.changes.map((c) => c.kind),
    ['moved', 'moved'],
  );
  t.false(reversed.breaking);
});

test('changes combine: each listed once, removed first, the rest in the new order', (t) => {
  const before = schema([...base, ['old', 'boolean', '44'], ['qty', 'integer', '55']]);
  const after = schema([
    ['qty', 'float', '56', 1], // moved, retyped and with nulls
    ['id', 'integer', '11'],
    ['title', 'string', '22'], // renamed
    ['extra', 'string', '66'], // added
    ['price', 'integer', '33'], // float → integer
  ]);
  t.deepEqual(diffSchemas(before, after), {
    breaking: true,
    changes: [
      { kind: 'removed', column: 'old', position: 3, type: 'boolean', impact: 'breaking' },
      { kind: 'moved', column: 'qty', position: 0, previousPosition: 4, impact: 'compatible' },
      { kind: 'retyped', column: 'qty', position: 0, type: 'float', previousType: 'integer', impact: 'breaking' },
      { kind: 'nullsAppeared', column: 'qty', position: 0, nullCount: 1, impact: 'breaking' },
      { kind: 'renamed', column: 'title', position: 2, previousName: 'name', previousPosition: 1, impact: 'breaking' },
      { kind: 'added', column: 'extra', position: 3, type: 'string', impact: 'compatible' },
      { kind: 'retyped', column: 'price', position: 4, type: 'integer', previousType: 'float', impact: 'compatible' },
    ],
  });
});

test('only compatible changes together are not breaking', (t) => {
  const after = schema([base[2]!, base[0]!, ['extra', 'string', '66'], base[1]!]);
  const diff = diffSchemas(schema(base), after);
  t.deepEqual(
    diff.changes.map((c) => c.kind),
    ['moved', 'added'],
  );
  t.false(diff.breaking);
});

test('two all-null columns renamed are not taken for renames: their fingerprints tell only the row count', (t) => {
  const before = schema([base[0]!, ['a', 'string', '0', 10], ['b', 'string', '0', 10]]);
  const after = schema([base[0]!, ['c', 'string', '0', 10], ['d', 'string', '0', 10]]);
  t.deepEqual(
    diffSchemas(before, after).changes.map((c) => `${c.kind} ${c.column}`),
    ['removed a', 'removed b', 'added c', 'added d'],
  );
  const alone = diffSchemas(schema([['a', 'string', '0', 10]]), schema([['c', 'string', '0', 10]]));
  t.deepEqual(
    alone.changes.map((c) => c.kind),
    ['removed', 'added'],
  );
});

test('an empty version has no values to recognize a column by', (t) => {
  const diff = diffSchemas(schema([['a', 'string', '0']], 0), schema([['b', 'string', '0']], 0));
  t.deepEqual(
    diff.changes.map((c) => c.kind),
    ['removed', 'added'],
  );
});

test('values held by two columns are no evidence of a rename elsewhere', (t) => {
  // `copy` held the same values as `name`; now `label` holds them at another position: which one was renamed?
  const before = schema([base[0]!, base[1]!, ['copy', 'string', '22']]);
  const after = schema([['label', 'string', '22'], base[0]!]);
  t.deepEqual(
    diffSchemas(before, after).changes.map((c) => `${c.kind} ${c.column}`),
    ['removed name', 'removed copy', 'added label'],
  );
  // Nor is a value set that a kept column holds too.
  const kept = diffSchemas(schema([base[0]!, base[1]!, ['copy', 'string', '22']]), schema([['label', 'string', '22'], base[0]!, base[1]!]));
  t.deepEqual(
    kept.changes.map((c) => `${c.kind} ${c.column}`),
    ['removed copy', 'added label'],
  );
});

test('at the same position, the same values are a rename even when another column holds them too', (t) => {
  const before = schema([base[0]!, ['a', 'string', '22'], ['b', 'string', '22']]);
  const after = schema([base[0]!, ['c', 'string', '22'], ['d', 'string', '22']]);
  t.deepEqual(
    diffSchemas(before, after).changes.map((c) => `${c.kind} ${c.column}`),
    ['renamed c', 'renamed d'],
  );
});

test('the same fingerprint under another type is not a rename', (t) => {
  const diff = diffSchemas(schema([['a', 'integer', '5']]), schema([['b', 'float', '5']]));
  t.deepEqual(
    diff.changes.map((c) => c.kind),
    ['removed', 'added'],
  );
});

test('schemas made before fingerprints: no renames, but every other kind is found', (t) => {
  const old = schema([
    ['id', 'integer'],
    ['name', 'string'],
    ['price', 'float'],
  ]);
  const diff = diffSchemas(old, schema([base[0]!, ['label', 'string', '22'], ['price', 'integer', '33', 1]]));
  t.deepEqual(diff, {
    breaking: true,
    changes: [
      { kind: 'removed', column: 'name', position: 1, type: 'string', impact: 'breaking' },
      { kind: 'added', column: 'label', position: 1, type: 'string', impact: 'compatible' },
      { kind: 'retyped', column: 'price', position: 2, type: 'integer', previousType: 'float', impact: 'compatible' },
      { kind: 'nullsAppeared', column: 'price', position: 2, nullCount: 1, impact: 'breaking' },
    ],
  });
  const neither = diffSchemas(
    old,
    schema([
      ['id', 'integer'],
      ['label', 'string'],
      ['price', 'float'],
    ]),
  );
  t.deepEqual(
    neither.changes.map((c) => `${c.kind} ${c.column}`),
    ['removed name', 'added label'],
  );
});

test('from a version without rows, retypes are compatible and nulls are no change', (t) => {
  const header = schema(
    [
      ['id', 'string', '0'],
      ['name', 'string', '0'],
    ],
    0,
  );
  const data = schema([
    ['id', 'integer', '11'],
    ['name', 'string', '22', 4],
  ]);
  t.deepEqual(diffSchemas(header, data), {
    breaking: false,
    changes: [{ kind: 'retyped', column: 'id', position: 0, type: 'integer', previousType: 'string', impact: 'compatible' }],
  });
});

test('the diff is plain JSON, stored and read back unchanged', (t) => {
  const diff = diffSchemas(
    schema(base),
    schema([
      ['price', 'integer', '1', 2],
      ['label', 'string', '22'],
    ]),
  );
  t.deepEqual(JSON.parse(JSON.stringify(diff)), diff);
});

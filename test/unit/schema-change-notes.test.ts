/**
 * A version's notes (issue 30 §2, `adms:versionNotes` in the feeds): its schema changes against the version
 * before, as one sentence, breaking changes marked; nothing at all when there is nothing to tell.
 */
import test from 'ava';
import { schemaChangeNotes } from '../../src/domain/pipeline/schema-change-notes.ts';
import { diffSchemas, type SchemaChange } from '../../src/domain/pipeline/schema-diff.ts';
import type { ColumnType, TableSchema } from '../../src/tabular/column-schema.ts';

const diff = (...changes: SchemaChange[]) => ({ breaking: changes.some((c) => c.impact === 'breaking'), changes });

test('a first version (no diff) and a version whose columns did not change have no notes', (t) => {
  t.is(schemaChangeNotes(null), null);
  t.is(schemaChangeNotes(diff()), null);
});

test('a rename and an added column read as one sentence, the breaking change marked', (t) => {
  t.is(
    schemaChangeNotes(
      diff(
        { kind: 'renamed', column: 'town', position: 1, previousName: 'city', previousPosition: 1, impact: 'breaking' },
        { kind: 'added', column: 'region', position: 3, type: 'string', impact: 'compatible' },
      ),
    ),
    'Column city renamed to town (breaking); column region added.',
  );
});

test('every kind of change has its phrase; positions count from 1', (t) => {
  t.is(
    schemaChangeNotes(
      diff(
        { kind: 'removed', column: 'people', position: 2, type: 'integer', impact: 'breaking' },
        { kind: 'moved', column: 'id', position: 2, previousPosition: 0, impact: 'compatible' },
        { kind: 'retyped', column: 'price', position: 0, type: 'float', previousType: 'integer', impact: 'breaking' },
        { kind: 'retyped', column: 'score', position: 1, type: 'integer', previousType: 'float', impact: 'compatible' },
        { kind: 'nullsAppeared', column: 'score', position: 1, nullCount: 3, impact: 'breaking' },
      ),
    ),
    'Column people removed (breaking); column id moved from position 1 to 3; column price changed from integer to float (breaking); ' +
      'column score changed from float to integer; column score now has empty values (breaking).',
  );
});

test('a name that is not one plain word is quoted, so that the sentence still parses', (t) => {
  t.is(
    schemaChangeNotes(
      diff(
        { kind: 'renamed', column: 'unit price; €', position: 0, previousName: 'prix', previousPosition: 0, impact: 'breaking' },
        { kind: 'added', column: 'année', position: 1, type: 'integer', impact: 'compatible' },
      ),
    ),
    'Column prix renamed to "unit price; €" (breaking); column année added.',
  );
});

test('the notes of a real diff: the diff decides the changes, the notes only word them', (t) => {
  const schema = (columns: Array<[string, ColumnType, string]>): TableSchema => ({
    rowCount: 2,
    previewTruncated: false,
    columns: columns.map(([name, type, fingerprint]) => ({ name, type, nullable: false, nullCount: 0, fingerprint })),
  });
  const before = schema([
    ['id', 'integer', '1'],
    ['city', 'string', '2'],
  ]);
  const after = schema([
    ['id', 'integer', '1'],
    ['town', 'string', '2'],
    ['region', 'string', '3'],
  ]);
  t.is(schemaChangeNotes(diffSchemas(before, after)), 'Column city renamed to town (breaking); column region added.');
});

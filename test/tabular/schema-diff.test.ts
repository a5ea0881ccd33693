/**
 * The schema diff over the schemas real previews record: the fingerprint DuckDB computes is what tells a
 * renamed column from a dropped one, whatever the rows' order.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { diffSchemas } from '../../src/domain/pipeline/schema-diff.ts';
import { buildTabularPreview } from '../../src/tabular/index.ts';
import { scratchDir } from './fixtures.ts';

test('two versions of a file: a rename, a widened column, nulls appearing and an added column', async (t) => {
  const dir = await scratchDir(t);
  const schemaOf = async (name: string, csv: string) => {
    await writeFile(join(dir, name), csv);
    return (await buildTabularPreview({ sourcePath: join(dir, name), workDir: join(dir, `${name}-work`), tabular: 'csv' })).schema;
  };
  const v1 = await schemaOf('v1.csv', 'code,city,pop,area,x,y\n75,Paris,2100000,105,,\n13,Marseille,870000,240,,\n69,Lyon,520000,48,,\n');
  // Rows reordered; city renamed; pop now has a decimal; area lost a value; two empty columns renamed; a column added.
  const v2 = await schemaOf(
    'v2.csv',
    'code,town,pop,area,p,q,mayor\n69,Lyon,520000.5,,,,G\n75,Paris,2100000,105,,,H\n13,Marseille,870000,240,,,P\n',
  );
  t.deepEqual(diffSchemas(v1, v2), {
    breaking: true,
    changes: [
      { kind: 'removed', column: 'x', position: 4, type: 'string', impact: 'breaking' },
      { kind: 'removed', column: 'y', position: 5, type: 'string', impact: 'breaking' },
      { kind: 'renamed', column: 'town', position: 1, previousName: 'city', previousPosition: 1, impact: 'breaking' },
      { kind: 'retyped', column: 'pop', position: 2, type: 'float', previousType: 'integer', impact: 'breaking' },
      { kind: 'nullsAppeared', column: 'area', position: 3, nullCount: 1, impact: 'breaking' },
      { kind: 'added', column: 'p', position: 4, type: 'string', impact: 'compatible' },
      { kind: 'added', column: 'q', position: 5, type: 'string', impact: 'compatible' },
      { kind: 'added', column: 'mayor', position: 6, type: 'string', impact: 'compatible' },
    ],
  });
  t.deepEqual(diffSchemas(v2, v2), { breaking: false, changes: [] });
});

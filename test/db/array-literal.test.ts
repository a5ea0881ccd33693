import test from 'ava';
import pg from 'pg';
import { pgArray } from '../../src/db.ts';

test('pgArray passes any text through PostgreSQL unchanged, one element each; a bad uuid is PostgreSQL’s own error', async (t) => {
  const client = new pg.Client({ connectionString: process.env.TEST_PG_URL });
  await client.connect();
  t.teardown(() => client.end());
  const values = ['plain', 'with "quotes"', 'back\\slash', 'a,b', '{braces}', 'NULL', ' spaced ', ''];
  const { rows } = await client.query('select $1::text[] as a', [pgArray(values)]);
  t.deepEqual(rows[0].a, values);
  await t.throwsAsync(client.query('select $1::uuid[]', [pgArray(['not-a-uuid'])]), { message: /invalid input syntax for type uuid/ });
});

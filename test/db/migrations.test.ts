import test from 'ava';
import pg from 'pg';
import { openDatabase } from '../../src/db.ts';

// The committed migrations must build exactly the schema the entities describe (MikroORM's migration:check).
test('the migrations leave nothing for the entities to change', async (t) => {
  const database = `almanac_schema_${Date.now()}`;
  const admin = new pg.Client({ connectionString: process.env.TEST_PG_URL });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const orm = await openDatabase(process.env.TEST_PG_URL!.replace(/\/postgres$/, `/${database}`));
  try {
    const applied = await orm.getMigrator().up();
    t.true(applied.length > 0);
    const drift = await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false });
    t.is(drift.trim(), '', `entities drifted from migrations:\n${drift}`);
  } finally {
    await orm.close();
    await admin.query(`drop database ${database}`);
    await admin.end();
  }
});

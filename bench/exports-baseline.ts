/**
 * The exports bench's baseline, in a process of its own (bench/exports.ts forks it): DuckDB writing the
 * preview's rows with its own `COPY … TO` a file, 2 threads as the sandbox has, XLSX by its excel extension. Apart from the server, so
 * that its DuckDB memory does not count as the server's RSS and the two can take turns run by run.
 */
import fsp from 'node:fs/promises';
import { DuckDBInstance } from '@duckdb/node-api';

const duck = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await duck.connect();
// DuckDB's excel extension (signed, from PyPI: test/helpers/tools.ts), for its XLSX writer.
if (process.env.DUCKDB_EXCEL_EXTENSION) await conn.run(`LOAD '${process.env.DUCKDB_EXCEL_EXTENSION}'`);
process.on('message', async ({ sql, file }: { sql: string; file: string }) => {
  const t = performance.now();
  await conn.run(sql);
  const seconds = (performance.now() - t) / 1000;
  const { size } = await fsp.stat(file);
  await fsp.rm(file);
  process.send!({ seconds, bytes: size });
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });

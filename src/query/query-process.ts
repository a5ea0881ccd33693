/**
 * The program of a query process (process-pool.ts starts it): runs the jobs its parent sends, one at a
 * time, each in a fresh sandbox (sandbox.ts), and answers with the capped result or the failure. It has
 * no timer of its own: its parent kills it at the deadline, which stops DuckDB's threads with it.
 */
import { runSandboxedExport, type ExportJob, type ExportReady } from './export-run.ts';
import { spareStarted } from './fresh-instances.ts';
import { QueryError, runSandboxedQuery, SandboxUnavailable, type QueryLimits, type QueryResult, type QueryTable } from './sandbox.ts';

export interface QueryJob {
  parquetPath: string;
  sql: string;
  limits: QueryLimits;
  /** The DataStore's views in place of `data`, and the result's column types (sandbox.ts QueryOptions). */
  tables?: QueryTable[];
  columnTypes?: boolean;
  /** The service's own SQL, not a caller's (sandbox.ts QueryOptions). */
  planned?: boolean;
  /** An export of the query's result (or, with sql null, of the whole preview) instead of the JSON answer. */
  export?: ExportJob;
}

/**
 * `broken`: this process could not open a sandbox (a fresh DuckDB instance, its settings), so the query never
 * ran; the pool retries it in a new process. `internal`: the query failed in a way that names no query error.
 */
export type QueryProcessMessage =
  | { ready: true }
  | { exportReady: ExportReady }
  | { result: QueryResult }
  | { failure: { code: QueryError['code'] | 'broken' | 'internal'; message: string } };

const send = (message: QueryProcessMessage) => process.send!(message);

process.on('message', (job: QueryJob) => {
  const run = job.export
    ? runSandboxedExport(job.parquetPath, job.export, job.limits, (exportReady) => send({ exportReady }))
    : runSandboxedQuery(job.parquetPath, job.sql, job.limits, { tables: job.tables, columnTypes: job.columnTypes, planned: job.planned });
  run.then(
    (result) => send({ result }),
    (err: unknown) =>
      send({
        failure:
          err instanceof QueryError
            ? { code: err.code, message: err.message }
            : {
                code: err instanceof SandboxUnavailable ? 'broken' : 'internal',
                message: err instanceof Error ? err.message : String(err),
              },
      }),
  );
});
// The API process went away: nobody is left to answer.
process.on('disconnect', () => process.exit(0));

await spareStarted();
send({ ready: true });

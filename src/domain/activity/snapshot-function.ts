import { SNAPSHOT_SQL } from '../datasets/detail-query.ts';

/**
 * `almanac_dataset_snapshot(id)`, which the activity triggers call at commit (migration
 * 20261127100000_Activities): the dataset's detail row as JSON, by the statement the live read uses.
 * Installed at each start, after the migrations, so the recorded record grows with the field table
 * without a migration per field; null once the dataset is gone.
 */
export const SNAPSHOT_FUNCTION_SQL = `create or replace function almanac_dataset_snapshot(uuid) returns jsonb language sql stable as $snapshot$
  select to_jsonb(x) from (${SNAPSHOT_SQL}) x
$snapshot$`;

/**
 * Every workflow replays a recorded history of a real run (test/temporal/histories/, made by
 * record-histories.ts): a change to a workflow that would break the runs in flight when it is deployed
 * (non-determinism) fails here. A workflow without a history fails too, so a new one cannot skip this.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { Worker } from '@temporalio/worker';
import * as workflows from '../../workflows/index.ts';

const HISTORIES = path.resolve(import.meta.dirname, 'histories');

async function histories() {
  const files = (await fs.readdir(HISTORIES)).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => {
      const history = JSON.parse(await fs.readFile(path.join(HISTORIES, file), 'utf8'));
      const type: string = history.events[0].workflowExecutionStartedEventAttributes.workflowType.name;
      return { workflowId: file.replace(/\.json$/, ''), type, history };
    }),
  );
}

test('every workflow has a recorded history', async (t) => {
  const recorded = new Set((await histories()).map((h) => h.type));
  t.deepEqual(
    Object.keys(workflows).filter((name) => !recorded.has(name)),
    [],
  );
});

test('every recorded history replays without a determinism error', async (t) => {
  const all = await histories();
  // The suite's bundle (test/run.ts) when there is one: replaying then runs no webpack.
  const code = process.env.ALMANAC_WORKFLOW_BUNDLE
    ? { workflowBundle: { codePath: process.env.ALMANAC_WORKFLOW_BUNDLE } }
    : { workflowsPath: path.resolve(import.meta.dirname, '../../workflows/index.ts') };
  const results = Worker.runReplayHistories({ ...code, replayName: 'recorded' }, all);
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of results) {
    replayed++;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  t.is(replayed, all.length);
  t.deepEqual(failures, []);
});

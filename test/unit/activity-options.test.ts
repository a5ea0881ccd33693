import test from 'ava';
import type { ActivityOptions } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time.js';
import * as options from '../../workflows/activity-options.ts';

const MINUTE = 60_000;

const named = Object.entries(options).filter(
  (entry): entry is [string, ActivityOptions] => typeof entry[1] === 'object' && entry[1] !== null && 'startToCloseTimeout' in entry[1],
);

test('the table names the activity options the workflows use', (t) => {
  t.true(named.length >= 7, named.map(([name]) => name).join(', '));
});

// A worker killed mid-step is noticed by the heartbeat timeout when there is one, else only at the step's
// start-to-close timeout: a harvest's end once waited 30 minutes for a worker that was gone.
for (const [name, opts] of named) {
  test(`${name}: a step on a worker that died is handed on within two minutes`, (t) => {
    const noticedAfter = msToNumber(opts.heartbeatTimeout ?? opts.startToCloseTimeout!);
    t.true(noticedAfter <= 2 * MINUTE, `${name} waits ${noticedAfter / 1000} s for a dead worker`);
  });
}

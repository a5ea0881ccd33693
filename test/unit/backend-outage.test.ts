import test from 'ava';
import { isDatabaseDown, isTransientDatabaseFailure, isUnreachable } from '../../src/net/backend-outage.ts';

const failure = (props: Record<string, unknown>, message = 'failed') => Object.assign(new Error(message), props);

test('a server refusing, resetting or not resolving is unreachable, also when the code is on a cause or one attempt of several', (t) => {
  t.true(isUnreachable(failure({ code: 'ECONNREFUSED' })));
  t.true(isUnreachable(failure({ cause: failure({ code: 'ENOTFOUND' }) })));
  t.true(isUnreachable(new AggregateError([failure({ code: 'EHOSTUNREACH' })], 'every address failed')));
  t.false(isUnreachable(failure({ code: 'NoSuchKey' })));
  t.false(isUnreachable('ECONNREFUSED'));
});

test('the database is down when unreachable, shutting down or starting, its connection dropped, or its pool out of time', (t) => {
  t.true(isDatabaseDown(failure({ code: 'ETIMEDOUT' })));
  t.true(isDatabaseDown(failure({ code: '57P01' })));
  t.true(isDatabaseDown(failure({ code: '08006' })));
  t.true(isDatabaseDown(failure({ name: 'KnexTimeoutError' })));
  t.true(isDatabaseDown(failure({}, 'Connection terminated unexpectedly')));
  t.false(isDatabaseDown(failure({ code: '23505' })));
  t.false(isDatabaseDown(failure({ code: '40P01' })));
});

test('a deadlock or a database out of resources is transient; a constraint is the statement itself', (t) => {
  t.true(isTransientDatabaseFailure(failure({ code: '40P01' })));
  t.true(isTransientDatabaseFailure(failure({ code: '53300' })));
  t.true(isTransientDatabaseFailure(failure({ code: 'ECONNRESET' })));
  t.false(isTransientDatabaseFailure(failure({ code: '23505' })));
  t.false(isTransientDatabaseFailure(failure({ code: '22001' })));
});

import path from 'node:path';
import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config.ts';

test('nothing configured means the embedded defaults', (t) => {
  const config = loadConfig({});
  t.is(config.http.port, 3000);
  t.is(config.http.publicUrl, 'http://localhost:3000');
  t.is(config.dataDir, path.resolve('./.data'));
  t.like(config.database, { mode: 'embedded', port: 5433 });
  t.like(config.temporal, { embedded: true, address: '127.0.0.1:7233', taskQueue: 'almanac', runWorkerInProcess: true });
  t.like(config.storage, { mode: 'local', dir: path.resolve('./.data/files') });
});

test('production settings switch each part to its external engine', (t) => {
  const config = loadConfig({
    DATABASE_URL: 'postgres://u:p@db:5432/almanac',
    TEMPORAL_ADDRESS: 'temporal:7233',
    S3_ENDPOINT: 'http://minio:9000',
    S3_ACCESS_KEY: 'a',
    S3_SECRET_KEY: 'b',
    S3_BUCKET: 'almanac',
  });
  t.like(config.database, { mode: 'external', url: 'postgres://u:p@db:5432/almanac' });
  t.like(config.temporal, { embedded: false, address: 'temporal:7233', runWorkerInProcess: false });
  t.like(config.storage, { mode: 's3', bucket: 'almanac', region: 'us-east-1' });
});

test('each bad value is one line naming its variable', (t) => {
  const error = t.throws(() => loadConfig({ PORT: 'abc', TEMPORAL_ADDRESS: 'nope', REGISTRATION_ENABLED: 'maybe' }), {
    instanceOf: ConfigError,
  });
  const lines = error!.message.split('\n');
  t.is(lines.length, 3);
  t.regex(lines.find((l) => l.includes('PORT')) ?? '', /^invalid configuration: PORT: .*\(got "abc"\)$/);
  t.truthy(lines.find((l) => l.includes('TEMPORAL_ADDRESS')));
  t.truthy(lines.find((l) => l.includes('REGISTRATION_ENABLED')));
});

test('a partial S3 configuration names the missing variables and never echoes secrets', (t) => {
  const error = t.throws(() => loadConfig({ S3_ENDPOINT: 'http://minio:9000', S3_SECRET_KEY: 'supersecret' }));
  t.regex(error!.message, /S3_ACCESS_KEY/);
  t.regex(error!.message, /S3_BUCKET/);
  t.notRegex(error!.message, /supersecret/);
});

test('an admin username needs its password and email', (t) => {
  const error = t.throws(() => loadConfig({ ALMANAC_ADMIN_USERNAME: 'root' }));
  t.regex(error!.message, /ALMANAC_ADMIN_PASSWORD/);
});

test('the first sysadmin follows the same account rules as the API, so it can log in', (t) => {
  const error = t.throws(() =>
    loadConfig({ ALMANAC_ADMIN_USERNAME: 'Admin', ALMANAC_ADMIN_PASSWORD: 'long-enough', ALMANAC_ADMIN_EMAIL: 'a@example.org' }),
  );
  t.regex(error!.message, /^invalid configuration: ALMANAC_ADMIN_USERNAME: must be 2–100 lowercase/);
});

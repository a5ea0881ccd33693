import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { linkFailureReason } from '../../src/domain/pipeline/link-failures.ts';
import { FetchError, safeFetch } from '../../src/net/safe-fetch.ts';
import { refusedUrl } from '../helpers/file-server.ts';

/** The reason pipeline-status would show for fetching `url`, from the real fetch's real failure. */
async function reasonFor(url: string, options: { allowPrivateNetworks?: boolean; timeoutMs?: number } = {}) {
  try {
    (await safeFetch(url, { timeoutMs: options.timeoutMs ?? 5000, allowPrivateNetworks: options.allowPrivateNetworks ?? false })).discard();
  } catch (err) {
    if (err instanceof FetchError) return { reason: linkFailureReason(err), raw: err.message };
    throw err;
  }
  throw new Error(`${url} was fetched`);
}

test('a name that resolves to a private address is refused without saying what it resolved to', async (t) => {
  const { reason, raw } = await reasonFor('http://localhost:8080/internal.csv');
  t.regex(raw, /127\.0\.0\.1|::1/, 'the fetch itself knows the address');
  t.is(
    reason,
    'The link could not be fetched: it points to a private, local or reserved network address, which this catalog does not fetch from.',
  );
  t.notRegex(reason, /localhost|127\.|::1/);
});

test('a host name that does not exist, a closed port, a server that never answers and a non-http URL each have their reason', async (t) => {
  t.is(
    (await reasonFor('http://no-such-host.invalid/data.csv')).reason,
    'The link could not be fetched: its host name could not be found.',
  );
  const closed = await reasonFor(`${await refusedUrl()}/data.csv`, { allowPrivateNetworks: true });
  t.is(closed.reason, 'The link could not be fetched: its server could not be reached.');
  t.notRegex(closed.reason, /ECONNREFUSED|127\./);

  const silent = http.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/data.csv`;
    t.is(
      (await reasonFor(url, { allowPrivateNetworks: true, timeoutMs: 300 })).reason,
      'The link could not be fetched: its server did not answer in time.',
    );
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
  t.is((await reasonFor('ftp://example.org/data.csv')).reason, 'The link could not be fetched: it is not an http or https URL.');
});

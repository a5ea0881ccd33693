import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { probeLink } from '../../src/net/link-probe.ts';
import { FetchFailedError, FetchRefusedError, FetchTimeoutError, requestPinned, safeFetch } from '../../src/net/safe-fetch.ts';
import { freePort } from '../helpers/ports.ts';

// A real HTTP server on this host (both stacks), reached over loopback: refused unless private networks
// are allowed, which is what these tests then turn on.
let server: http.Server;
let port: number;
const seen: { path: string; method: string; host: string }[] = [];
const BIG = Buffer.alloc(100_000, 'x');

test.before(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push({ path, method: req.method ?? '', host: req.headers.host ?? '' });
    const hops = /^\/redirect\/(\d+)$/.exec(path);
    if (hops) {
      const n = Number(hops[1]);
      if (n === 0) return res.end('arrived');
      // Relative, absolute-path and absolute locations all count as hops.
      const next = [`${n - 1}`, `/redirect/${n - 1}`, `http://127.0.0.1:${port}/redirect/${n - 1}`][n % 3];
      res.writeHead(n % 2 ? 302 : 307, { location: next }).end();
      return;
    }
    switch (path) {
      case '/ok':
        return res.end('hello');
      case '/host':
        return res.end(req.headers.host);
      case '/big':
        return res.end(BIG);
      case '/to-metadata':
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      case '/to-file':
        return res.writeHead(301, { location: 'file:///etc/passwd' }).end();
      case '/hang':
        return; // never answers
      case '/trickle':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first bytes');
        return; // the rest never comes
      default:
        res.writeHead(404).end('no');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  port = (server.address() as AddressInfo).port;
});
test.after.always(() => {
  server?.closeAllConnections();
  server?.close();
});

const open = { timeoutMs: 3000, allowPrivateNetworks: true };

test.serial('loopback is refused by default, by IP, by IPv6 literal, in disguise and by name, before any request is sent', async (t) => {
  const before = seen.length;
  const urls = [
    `http://127.0.0.1:${port}/ok`,
    `http://[::1]:${port}/ok`,
    `http://localhost:${port}/ok`,
    `http://0.0.0.0:${port}/ok`,
    `http://2130706433:${port}/ok`,
    `http://[::ffff:127.0.0.1]:${port}/ok`,
  ];
  for (const url of urls) {
    const err = await t.throwsAsync(safeFetch(url, { timeoutMs: 3000 }), { instanceOf: FetchRefusedError }, url);
    t.regex(err!.message, /loopback|unspecified/, url);
  }
  const byName = await t.throwsAsync(safeFetch(`http://localhost:${port}/ok`, { timeoutMs: 3000 }));
  t.regex(byName!.message, /^localhost resolves to (127\.0\.0\.1|::1), which is a loopback address$/);
  t.is(seen.length, before, 'the server heard nothing');
});

test('metadata, private and link-local addresses are refused by default', async (t) => {
  for (const [url, what] of [
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://10.0.0.1/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fd00::1]/', 'unique-local'],
    ['http://100.64.0.1/', 'carrier-grade NAT'],
  ]) {
    const err = await t.throwsAsync(safeFetch(url, { timeoutMs: 1000 }), { instanceOf: FetchRefusedError }, url);
    t.true(err!.message.includes(what), `${url}: ${err!.message}`);
  }
});

test('the metadata address stays refused even when private networks are allowed', async (t) => {
  await t.throwsAsync(safeFetch('http://169.254.169.254/latest/meta-data/', open), {
    instanceOf: FetchRefusedError,
    message: /cloud metadata/,
  });
});

test('only http and https are fetched', async (t) => {
  for (const url of ['ftp://example.org/file.csv', 'file:///etc/passwd', 'gopher://example.org/', 'data:text/plain,hi']) {
    await t.throwsAsync(safeFetch(url, open), { instanceOf: FetchRefusedError, message: /scheme .* is not allowed/ }, url);
  }
  await t.throwsAsync(safeFetch('not a url', open), { instanceOf: FetchRefusedError, message: 'not an absolute URL' });
});

test('with private networks allowed, a local server answers; the Host header keeps the name while the connection is pinned to the checked address', async (t) => {
  const res = await safeFetch(`http://127.0.0.1:${port}/ok`, open);
  t.is(res.status, 200);
  t.is((await res.bytes()).toString(), 'hello');
  t.false(res.truncated);
  t.is(res.address, '127.0.0.1');

  const named = await safeFetch(`http://localhost:${port}/host`, open);
  t.is((await named.bytes()).toString(), `localhost:${port}`);
  t.true(['127.0.0.1', '::1'].includes(named.address));

  const v6 = await safeFetch(`http://[::1]:${port}/ok`, open);
  t.is(v6.address, '::1');
  t.is((await v6.bytes()).toString(), 'hello');
});

test('HEAD returns the status without a body', async (t) => {
  const res = await safeFetch(`http://127.0.0.1:${port}/ok`, { ...open, method: 'HEAD' });
  t.is(res.status, 200);
  t.is((await res.bytes()).length, 0);
  t.is(seen.at(-1)?.method, 'HEAD');
});

test('redirects are followed, relative or absolute, up to five hops', async (t) => {
  const res = await safeFetch(`http://127.0.0.1:${port}/redirect/5`, open);
  t.is(res.status, 200);
  t.is((await res.bytes()).toString(), 'arrived');
  t.is(res.redirects.length, 5);
  t.is(res.url, `http://127.0.0.1:${port}/redirect/0`);
});

test('a sixth redirect is refused', async (t) => {
  await t.throwsAsync(safeFetch(`http://127.0.0.1:${port}/redirect/6`, open), {
    instanceOf: FetchRefusedError,
    message: 'more than 5 redirects',
  });
  const fewer = await t.throwsAsync(safeFetch(`http://127.0.0.1:${port}/redirect/3`, { ...open, maxRedirects: 2 }));
  t.is(fewer!.message, 'more than 2 redirects');
});

test('every hop is checked again: a redirect to the metadata address or to a file is refused', async (t) => {
  await t.throwsAsync(safeFetch(`http://127.0.0.1:${port}/to-metadata`, open), {
    instanceOf: FetchRefusedError,
    message: /169\.254\.169\.254 is a cloud metadata address/,
  });
  await t.throwsAsync(safeFetch(`http://127.0.0.1:${port}/to-file`, open), { instanceOf: FetchRefusedError, message: /scheme file/ });
});

test('the body stops at the byte cap and says it was truncated', async (t) => {
  const capped = await safeFetch(`http://127.0.0.1:${port}/big`, { ...open, maxBytes: 1000 });
  const body = await capped.bytes();
  t.is(body.length, 1000);
  t.true(capped.truncated);

  const whole = await safeFetch(`http://127.0.0.1:${port}/big`, { ...open, maxBytes: BIG.length });
  t.is((await whole.bytes()).length, BIG.length);
  t.false(whole.truncated);
});

test('a server that never answers is a timeout within the deadline', async (t) => {
  const started = Date.now();
  await t.throwsAsync(safeFetch(`http://127.0.0.1:${port}/hang`, { ...open, timeoutMs: 300 }), { instanceOf: FetchTimeoutError });
  t.true(Date.now() - started < 2000);
});

test('the deadline covers the body too', async (t) => {
  const res = await safeFetch(`http://127.0.0.1:${port}/trickle`, { ...open, timeoutMs: 500 });
  t.is(res.status, 200);
  await t.throwsAsync(res.bytes(), { instanceOf: FetchTimeoutError });
});

test('a closed port and an unknown host are failures with their reason', async (t) => {
  const closed = await freePort();
  await t.throwsAsync(safeFetch(`http://127.0.0.1:${closed}/`, open), { instanceOf: FetchFailedError, message: /connection refused/ });
  const unknown = await t.throwsAsync(safeFetch('http://no-such-host.invalid/', open), { instanceOf: FetchFailedError });
  t.regex(unknown!.message, /no-such-host\.invalid could not be resolved/);
});

test.serial('a link check of a local address with private networks off is broken, says why, and sends nothing', async (t) => {
  const before = seen.length;
  for (const url of [`http://127.0.0.1:${port}/ok`, `http://[::1]:${port}/ok`, `http://localhost:${port}/ok`]) {
    const probe = await probeLink(url, { timeoutMs: 2000 });
    t.like(probe, { status: 'broken', httpStatus: null }, url);
    t.regex(probe.error!, /is a loopback address$/, url);
  }
  t.is(seen.length, before);
  t.like(await probeLink(`http://127.0.0.1:${port}/ok`, { timeoutMs: 2000, allowPrivateNetworks: true }), {
    status: 'ok',
    httpStatus: 200,
  });
});

test('a pinned request connects to the checked address and never asks the resolver again', async (t) => {
  // The name does not resolve at all: reaching the server proves the connection used the pinned address,
  // so a DNS answer that changes after the check (rebinding) cannot redirect it.
  const target = new URL(`http://no-such-host.invalid:${port}/host`);
  const res = await requestPinned(target, { address: '127.0.0.1', family: 4 }, 'GET', {}, new AbortController().signal);
  t.is(res.statusCode, 200);
  t.is(res.socket.remoteAddress, '127.0.0.1');
  let body = '';
  for await (const chunk of res) body += chunk;
  t.is(body, `no-such-host.invalid:${port}`, 'the Host header keeps the name');
});

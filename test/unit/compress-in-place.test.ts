import test from 'ava';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { chosenCoding } from '../../src/http/middleware/compress-in-place.ts';
import { compression } from '../../src/http/middleware/public-answers.ts';

test('the coding chosen for a plain Accept-Encoding list is koa-compress’s: highest q, ties to br, gzip, deflate, identity', (t) => {
  t.is(chosenCoding('gzip, deflate'), 'gzip');
  t.is(chosenCoding('gzip, deflate, br, zstd'), 'br');
  t.is(chosenCoding('gzip;q=1.0, br;q=0.9'), 'gzip');
  t.is(chosenCoding('br;q=0, gzip'), 'gzip');
  t.is(chosenCoding('gzip;q=0.5, identity'), 'identity');
  t.is(chosenCoding('gzip;q=0.5'), 'gzip');
  t.is(chosenCoding('x-gzip'), 'identity');
});

test('a wildcard, a missing header or one that does not read is left to koa-compress', (t) => {
  for (const header of [undefined, '', '*', 'gzip, *;q=0', 'gzip;q=0', 'gzip;level=9'])
    t.is(chosenCoding(header), undefined, String(header));
});

let server: Server;
let url: string;
const small = JSON.stringify({ rows: Array.from({ length: 100 }, (_, i) => ({ i, name: `row ${i}` })) });
const large = JSON.stringify({ rows: Array.from({ length: 20_000 }, (_, i) => ({ i, name: `row ${i}` })) });
test.before(async () => {
  const app = new Koa();
  app.use(compression());
  app.use((ctx) => {
    ctx.set('Content-Type', 'application/json');
    ctx.body = ctx.path === '/large' ? large : small;
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(() => server.close());

/** fetch decodes the body as its Content-Encoding says: the text read back is the decoded answer. */
async function get(path: string, acceptEncoding: string) {
  const res = await fetch(`${url}${path}`, { headers: { 'Accept-Encoding': acceptEncoding } });
  return {
    coding: res.headers.get('content-encoding'),
    text: await res.text(),
    vary: res.headers.get('vary'),
    length: res.headers.get('content-length'),
  };
}

test('an answer compressed in place or by the stream reads back the same, with the coding the client prefers', async (t) => {
  for (const [path, body] of [
    ['/small', small],
    ['/large', large],
  ] as const) {
    for (const [header, coding] of [
      ['gzip, deflate', 'gzip'],
      ['gzip, br', 'br'],
      ['deflate', 'deflate'],
      ['*', 'gzip'],
      ['identity', null],
    ] as const) {
      const answer = await get(path, header);
      t.is(answer.coding, coding, `${path} ${header}`);
      t.is(answer.text, body, `${path} ${header}`);
      t.regex(answer.vary ?? '', /Accept-Encoding/);
      // Compressed in place, a small answer has its length; through the stream, a large one is chunked.
      if (coding && header !== '*') t.is(answer.length !== null, path === '/small', `${path} ${header}`);
    }
  }
});

import test from 'ava';
import { signPut, verifyPut } from '../../src/storage/signing.ts';

const secret = 'a-test-secret-that-is-long-enough-0123456789';
const key = 'resources/0b9f3c1e-5a51-4b43-9d6b-3f1f3b0d8a11/source';
const expires = 1_900_000_000;
const before = new Date((expires - 60) * 1000);
const signature = signPut(secret, key, expires, 'text/csv');
const presented = { key, expires: String(expires), signature, contentType: 'text/csv', now: before };

test('a URL Almanac signed is accepted until it expires', (t) => {
  t.deepEqual(verifyPut(secret, presented), { ok: true });
  t.deepEqual(verifyPut(secret, { ...presented, expires }), { ok: true }, 'a number as well as the query string text');
  t.deepEqual(verifyPut(secret, { ...presented, now: new Date(expires * 1000 - 1) }), { ok: true });
});

test('at and after its expiry it is refused as expired', (t) => {
  t.deepEqual(verifyPut(secret, { ...presented, now: new Date(expires * 1000) }), { ok: false, reason: 'expired' });
  t.deepEqual(verifyPut(secret, { ...presented, now: new Date((expires + 3600) * 1000) }), { ok: false, reason: 'expired' });
});

test('changing the key, the expiry, the content type or the secret is a bad signature', (t) => {
  const bad = { ok: false, reason: 'bad_signature' };
  t.deepEqual(verifyPut(secret, { ...presented, key: `${key}x` }), bad);
  t.deepEqual(verifyPut(secret, { ...presented, key: 'resources/0b9f3c1e-5a51-4b43-9d6b-3f1f3b0d8a11/preview.parquet' }), bad);
  t.deepEqual(verifyPut(secret, { ...presented, expires: String(expires + 3600) }), bad);
  t.deepEqual(verifyPut(secret, { ...presented, contentType: 'text/html' }), bad);
  t.deepEqual(verifyPut(secret, { ...presented, contentType: 'text/csv; charset=utf-8' }), bad);
  t.deepEqual(verifyPut(`${secret}!`, presented), bad);
});

test('an altered URL is a bad signature even when its date has passed: expired is only said of genuine URLs', (t) => {
  const later = new Date((expires + 3600) * 1000);
  t.deepEqual(verifyPut(secret, { ...presented, key: `${key}x`, now: later }), { ok: false, reason: 'bad_signature' });
});

test('malformed signatures and expiries are bad signatures, never exceptions', (t) => {
  const bad = { ok: false, reason: 'bad_signature' };
  for (const malformed of ['', 'zz', signature.slice(0, -2), `${signature}00`, signature.toUpperCase(), `${signature.slice(0, -1)}g`]) {
    t.deepEqual(verifyPut(secret, { ...presented, signature: malformed }), bad, JSON.stringify(malformed));
  }
  for (const malformed of ['', '-1', '1e9', '0x71', `${expires}.0`, ' 1900000000', '99999999999999999999']) {
    t.deepEqual(verifyPut(secret, { ...presented, expires: malformed }), bad, JSON.stringify(malformed));
  }
});

test('one flipped signature digit is refused', (t) => {
  const flipped = signature[10] === 'a' ? 'b' : 'a';
  t.deepEqual(verifyPut(secret, { ...presented, signature: signature.slice(0, 10) + flipped + signature.slice(11) }), {
    ok: false,
    reason: 'bad_signature',
  });
});

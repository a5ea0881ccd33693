import test from 'ava';
import { crc32, generateTokenSecret, isWellFormedTokenSecret, newTokenId } from '../../src/domain/auth/token-format.ts';

test('a generated secret is alm_ + 40 base62 + a 6-character checksum', (t) => {
  const secret = generateTokenSecret();
  t.regex(secret, /^alm_[0-9A-Za-z]{46}$/);
  t.true(isWellFormedTokenSecret(secret));
});

test('secrets do not repeat', (t) => {
  const seen = new Set(Array.from({ length: 1000 }, generateTokenSecret));
  t.is(seen.size, 1000);
});

test('a single changed character fails the checksum', (t) => {
  const secret = generateTokenSecret();
  const i = 10;
  const swapped = secret.slice(0, i) + (secret[i] === 'a' ? 'b' : 'a') + secret.slice(i + 1);
  t.false(isWellFormedTokenSecret(swapped));
});

test('wrong prefix, length or alphabet is rejected', (t) => {
  const secret = generateTokenSecret();
  t.false(isWellFormedTokenSecret(`xyz_${secret.slice(4)}`));
  t.false(isWellFormedTokenSecret(secret.slice(0, -1)));
  t.false(isWellFormedTokenSecret(`${secret}0`));
  t.false(isWellFormedTokenSecret(`${secret.slice(0, 20)}-${secret.slice(21)}`));
  t.false(isWellFormedTokenSecret(''));
});

test('crc32 matches the standard check value', (t) => {
  t.is(crc32('123456789'), 0xcbf43926);
});

test('token ids start with tok_', (t) => {
  t.regex(newTokenId(), /^tok_[0-9A-Za-z]{20}$/);
});

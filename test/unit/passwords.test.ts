import test from 'ava';
import { hashPassword, verifyAgainstDecoy, verifyPassword } from '../../src/domain/auth/passwords.ts';

test('a password verifies against its own hash only', async (t) => {
  const hash = await hashPassword('correct horse');
  t.regex(hash, /^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  t.true(await verifyPassword('correct horse', hash));
  t.false(await verifyPassword('correct horsE', hash));
});

test('two hashes of one password differ (salted)', async (t) => {
  t.not(await hashPassword('same'), await hashPassword('same'));
});

test('an unknown hash scheme never verifies', async (t) => {
  t.false(await verifyPassword('x', 'md5$abc'));
  t.false(await verifyPassword('x', ''));
});

test('the decoy check always fails', async (t) => {
  t.false(await verifyAgainstDecoy('decoy password that matches nothing'));
});

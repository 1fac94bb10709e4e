import { randomBytes } from 'node:crypto';
import t from 'tap';
import { Keyring } from '../../src/shared/crypto/keyring.js';

const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');

t.test('the first key encrypts, every key decrypts, nonces are fresh', async (t) => {
  const old = Keyring.parse(`old:${k1}`);
  const sealed = old.encrypt('sk-secret', 'aad-1');
  t.equal(old.keyIdOf(sealed), 'old');
  t.notMatch(sealed, 'sk-secret');
  t.not(old.encrypt('sk-secret', 'aad-1'), sealed, 'a fresh nonce each time');
  const rotated = Keyring.parse(`new:${k2},old:${k1}`);
  t.equal(rotated.decrypt(sealed, 'aad-1'), 'sk-secret');
  t.equal(rotated.keyIdOf(rotated.encrypt('x')), 'new');
  t.throws(() => rotated.decrypt(sealed, 'aad-2'), 'AAD binds the ciphertext to its record');
  t.throws(() => Keyring.parse(`new:${k2}`).decrypt(sealed, 'aad-1'), { code: 'VC_ERR_KEYRING' });
  const tampered = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  t.throws(() => rotated.decrypt(tampered, 'aad-1'));
});

t.test('bad keyrings are refused', async (t) => {
  t.throws(() => Keyring.parse(''), { code: 'VC_ERR_KEYRING' });
  t.throws(() => Keyring.parse(`k:${randomBytes(16).toString('base64')}`), /32 bytes/);
  t.throws(() => Keyring.parse('nocolon'), /id:base64key/);
});

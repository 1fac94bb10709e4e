import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../logger.js';

// AES-256-GCM under a keyring: the first key encrypts, every key decrypts. Ciphertext
// format: "<key id>:<base64 nonce>:<base64 ciphertext>:<base64 tag>".

export interface KeyringKey {
  id: string;
  key: Buffer;
}

export class KeyringError extends Error {
  readonly code = 'VC_ERR_KEYRING';
}

export class Keyring {
  private readonly byId: Map<string, Buffer>;
  readonly primaryId: string;

  constructor(keys: KeyringKey[]) {
    if (keys.length === 0) throw new KeyringError('keyring has no keys');
    for (const k of keys) {
      if (k.key.length !== 32) throw new KeyringError(`keyring key ${k.id} must be 32 bytes`);
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(k.id)) throw new KeyringError(`keyring key id ${k.id} is not valid`);
    }
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
    this.primaryId = keys[0].id;
  }

  /** Parses `id1:base64key,id2:base64key`. */
  static parse(spec: string): Keyring {
    const keys = spec
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const at = part.indexOf(':');
        if (at < 1) throw new KeyringError('KEYRING entries must look like id:base64key');
        return { id: part.slice(0, at), key: Buffer.from(part.slice(at + 1), 'base64') };
      });
    return new Keyring(keys);
  }

  encrypt(plaintext: string, aad = ''): string {
    const key = this.byId.get(this.primaryId)!;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(aad));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [this.primaryId, nonce.toString('base64'), body.toString('base64'), tag.toString('base64')].join(':');
  }

  decrypt(sealed: string, aad = ''): string {
    const [id, nonce, body, tag] = sealed.split(':');
    const key = id ? this.byId.get(id) : undefined;
    if (!key || !nonce || body === undefined || !tag) throw new KeyringError('ciphertext key is not in the keyring');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }

  keyIdOf(sealed: string): string {
    return sealed.slice(0, sealed.indexOf(':'));
  }
}

/** The configured keyring, or a development keyring persisted under the data directory. */
export function loadKeyring(spec: string | undefined, dataDir: string, log: Logger): Keyring {
  if (spec) return Keyring.parse(spec);
  const file = join(dataDir, 'keyring.json');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const generated = { keys: [{ id: 'dev1', key: randomBytes(32).toString('base64') }] };
    writeFileSync(file, JSON.stringify(generated), { mode: 0o600 });
  }
  log.warn({ file }, 'KEYRING is not set: using a generated development keyring; never do this in production');
  const saved = JSON.parse(readFileSync(file, 'utf8')) as { keys: { id: string; key: string }[] };
  return new Keyring(saved.keys.map((k) => ({ id: k.id, key: Buffer.from(k.key, 'base64') })));
}

import t from 'tap';
import { loadConfig } from '../../src/config/env.js';

// The two startup checks of src/config/env.ts that a deployment meets first (README "Deploy").

const KEYRING = `k1:${Buffer.alloc(32, 7).toString('base64')}`;

t.test('a wildcard HOST needs PUBLIC_BASE_URL and PUBLIC_MEDIA_URL', async (t) => {
  for (const HOST of ['0.0.0.0', '::', '[::]']) {
    t.throws(() => loadConfig({ HOST }), /HOST=.* binds every interface.*set PUBLIC_BASE_URL and PUBLIC_MEDIA_URL/, `${HOST}: both missing`);
    t.throws(() => loadConfig({ HOST, PUBLIC_BASE_URL: 'https://voice.example.com' }), /set PUBLIC_MEDIA_URL to/, `${HOST}: media URL missing`);
    t.throws(() => loadConfig({ HOST, PUBLIC_MEDIA_URL: 'wss://voice.example.com' }), /set PUBLIC_BASE_URL to/, `${HOST}: base URL missing`);
    t.throws(() => loadConfig({ HOST, PUBLIC_BASE_URL: 'https://voice.example.com', PUBLIC_MEDIA_URL: '' }), /set PUBLIC_MEDIA_URL/, `${HOST}: an empty value is not set`);
  }
  const c = loadConfig({ HOST: '0.0.0.0', PUBLIC_BASE_URL: 'https://voice.example.com', PUBLIC_MEDIA_URL: 'wss://voice.example.com' });
  t.equal(c.PUBLIC_BASE_URL, 'https://voice.example.com');
  t.equal(c.PUBLIC_MEDIA_URL, 'wss://voice.example.com');
});

t.test('a specific HOST keeps the derived defaults', async (t) => {
  const c = loadConfig({});
  t.equal(c.HOST, '127.0.0.1');
  t.equal(c.PUBLIC_BASE_URL, 'http://127.0.0.1:8080');
  t.equal(c.PUBLIC_MEDIA_URL, 'ws://127.0.0.1:8081');
  const lan = loadConfig({ HOST: '10.1.2.3', PORT: '9000', MEDIA_PORT: '9001' });
  t.equal(lan.PUBLIC_BASE_URL, 'http://10.1.2.3:9000');
  t.equal(lan.PUBLIC_MEDIA_URL, 'ws://10.1.2.3:9001');
});

t.test('NODE_ENV=production needs KEYRING', async (t) => {
  t.throws(() => loadConfig({ NODE_ENV: 'production' }), /KEYRING is required when NODE_ENV=production/);
  t.throws(() => loadConfig({ NODE_ENV: 'production', KEYRING: '' }), /KEYRING is required/);
  t.equal(loadConfig({ NODE_ENV: 'production', KEYRING }).KEYRING, KEYRING);
  // Outside production the development keyring stays available.
  t.equal(loadConfig({}).KEYRING, undefined);
  t.equal(loadConfig({ NODE_ENV: 'development' }).KEYRING, undefined);
});

t.test('the settings the image and deploy/ use together load', async (t) => {
  const c = loadConfig({
    NODE_ENV: 'production',
    HOST: '0.0.0.0',
    KEYRING,
    PUBLIC_BASE_URL: 'https://voice.example.com',
    PUBLIC_MEDIA_URL: 'wss://voice.example.com',
    TRUST_PROXY: '172.30.0.10',
    ROLES: 'media',
  });
  t.same(c.ROLES, ['media']);
  t.same(c.TRUST_PROXY, ['172.30.0.10']);
});

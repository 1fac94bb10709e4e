import { createHmac } from 'node:crypto';
import t from 'tap';
import {
  bodySha256,
  computeSignature,
  signingString,
  validateSignature,
  validateSignatureWithBody,
} from '../../src/carriers/twilio/signature.js';

// Twilio's published example (Webhooks security): auth token 12345, this URL and these params.
const TOKEN = '12345';
const URL_ = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const PARAMS = { CallSid: 'CA1234567890ABCDE', Caller: '+14158675309', Digits: '1234', From: '+14158675309', To: '+18005551212' };
const EXPECTED = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';

t.test('reproduces the documented example exactly', async (t) => {
  t.equal(
    signingString(URL_, PARAMS),
    'https://mycompany.com/myapp.php?foo=1&bar=2CallSidCA1234567890ABCDECaller+14158675309Digits1234From+14158675309To+18005551212',
  );
  t.equal(computeSignature(TOKEN, URL_, PARAMS), EXPECTED);
  t.ok(validateSignature(TOKEN, EXPECTED, URL_, PARAMS));
});

t.test('parameter order does not matter; the form body as received validates', async (t) => {
  const reversed = Object.fromEntries(Object.entries(PARAMS).reverse());
  t.ok(validateSignature(TOKEN, EXPECTED, URL_, reversed));
  const form = new URLSearchParams('To=%2B18005551212&From=%2B14158675309&Digits=1234&Caller=%2B14158675309&CallSid=CA1234567890ABCDE');
  t.ok(validateSignature(TOKEN, EXPECTED, URL_, form));
  t.ok(validateSignature(TOKEN, EXPECTED, URL_, [...form.entries()]));
});

t.test('names sort case-sensitively (Unix order: upper case before lower case)', async (t) => {
  t.equal(signingString('u', { b: '1', B: '2', a: '3', A: '4' }), 'uA4B2a3b1');
});

t.test('repeated parameters contribute every value, sorted', async (t) => {
  const form = new URLSearchParams('StatusCallbackEvent=ringing&StatusCallbackEvent=answered&A=1');
  t.equal(signingString('u', form), 'uA1StatusCallbackEventansweredStatusCallbackEventringing');
  t.equal(signingString('u', { A: '1', StatusCallbackEvent: ['ringing', 'answered'] }), 'uA1StatusCallbackEventansweredStatusCallbackEventringing');
});

t.test('rejects a tampered value, an added or missing parameter, another URL, token or an empty header', async (t) => {
  t.notOk(validateSignature(TOKEN, EXPECTED, URL_, { ...PARAMS, Digits: '9999' }), 'tampered value');
  t.notOk(validateSignature(TOKEN, EXPECTED, URL_, { ...PARAMS, Extra: 'x' }), 'added parameter');
  const { Digits: _d, ...missing } = PARAMS;
  t.notOk(validateSignature(TOKEN, EXPECTED, URL_, missing), 'missing parameter');
  t.notOk(validateSignature(TOKEN, EXPECTED, 'https://mycompany.com/myapp.php?foo=1&bar=3', PARAMS), 'other query');
  t.notOk(validateSignature(TOKEN, EXPECTED, 'http://mycompany.com/myapp.php?foo=1&bar=2', PARAMS), 'other scheme');
  t.notOk(validateSignature('54321', EXPECTED, URL_, PARAMS), 'other token');
  t.notOk(validateSignature(TOKEN, '', URL_, PARAMS), 'empty header');
  t.notOk(validateSignature(TOKEN, undefined, URL_, PARAMS), 'no header');
  t.notOk(validateSignature(TOKEN, EXPECTED.slice(0, -1), URL_, PARAMS), 'truncated signature');
  t.notOk(validateSignature(TOKEN, `${EXPECTED}x`, URL_, PARAMS), 'longer signature');
  t.notOk(validateSignature('', EXPECTED, URL_, PARAMS), 'no token configured');
  // Swapping a value between two names keeps the same characters but not the same string.
  t.notOk(validateSignature(TOKEN, EXPECTED, URL_, { ...PARAMS, From: '+18005551212', To: '+14158675309' }), 'swapped values');
});

t.test('the default port may or may not be in the signed URL', async (t) => {
  const withPort = 'https://mycompany.com:443/myapp.php?foo=1&bar=2';
  t.ok(validateSignature(TOKEN, computeSignature(TOKEN, withPort, PARAMS), URL_, PARAMS), 'signed with :443, checked without');
  t.ok(validateSignature(TOKEN, EXPECTED, withPort, PARAMS), 'signed without, checked with :443');
  t.notOk(validateSignature(TOKEN, computeSignature(TOKEN, 'https://mycompany.com:8443/myapp.php?foo=1&bar=2', PARAMS), URL_, PARAMS), 'another port is another URL');
});

t.test('JSON bodies: bodySHA256 in the URL, only the URL signed', async (t) => {
  const body = '{"CallSid":"CA123","CallStatus":"completed"}';
  const hash = bodySha256(body);
  t.match(hash, /^[0-9a-f]{64}$/);
  const url = `https://example.com/twilio/status?bodySHA256=${hash}`;
  const sig = createHmac('sha1', TOKEN).update(url).digest('base64');
  t.ok(validateSignatureWithBody(TOKEN, sig, url, body));
  t.ok(validateSignatureWithBody(TOKEN, sig, url, Buffer.from(body)));
  t.notOk(validateSignatureWithBody(TOKEN, sig, url, body.replace('completed', 'failed')), 'body changed');
  t.notOk(validateSignatureWithBody(TOKEN, sig, 'https://example.com/twilio/status', body), 'no bodySHA256');
  const otherHashUrl = `https://example.com/twilio/status?bodySHA256=${bodySha256('{}')}`;
  t.notOk(validateSignatureWithBody(TOKEN, sig, otherHashUrl, '{}'), 'hash swapped: URL signature no longer matches');
  t.notOk(validateSignatureWithBody(TOKEN, sig, 'not a url', body));
});

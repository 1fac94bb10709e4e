import t from 'tap';
import { generateKeyPairSync, sign } from 'node:crypto';
import { verifyTelnyxSignature, ed25519PublicKey } from '../../src/carriers/telnyx/signature.js';
import {
  buildTelnyxClear,
  buildTelnyxMark,
  buildTelnyxMedia,
  decodeClientState,
  encodeClientState,
  parseTelnyxInbound,
  parseTelnyxOutbound,
} from '../../src/carriers/telnyx/media-stream-protocol.js';
import { rawPublicKey } from '../fakes/telnyx/rest.js';

// The Telnyx pieces on their own: Ed25519 webhook signatures over `timestamp|body` and the media
// streaming frames as the documentation shows them.

t.test('signature: valid, stale, tampered, wrong key, malformed', async (t) => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pk = rawPublicKey(publicKey);
  const body = '{"data":{"event_type":"call.initiated","payload":{}}}';
  const now = 1_700_000_000;
  const ts = String(now);
  const sig = sign(null, Buffer.from(`${ts}|${body}`), privateKey).toString('base64');
  t.equal(verifyTelnyxSignature(pk, sig, ts, body, now), 'ok');
  t.equal(verifyTelnyxSignature(pk, sig, ts, Buffer.from(body), now + 300), 'ok', 'at the edge of the tolerance');
  t.equal(verifyTelnyxSignature(pk, sig, ts, body, now + 301), 'stale');
  t.equal(verifyTelnyxSignature(pk, sig, ts, `${body} `, now), 'invalid');
  t.equal(verifyTelnyxSignature(pk, sig, String(now + 1), body, now), 'invalid', 'the timestamp is signed');
  const other = rawPublicKey(generateKeyPairSync('ed25519').publicKey);
  t.equal(verifyTelnyxSignature(other, sig, ts, body, now), 'invalid');
  t.equal(verifyTelnyxSignature(pk, undefined, ts, body, now), 'missing');
  t.equal(verifyTelnyxSignature(pk, sig, undefined, body, now), 'missing');
  t.equal(verifyTelnyxSignature(pk, 'abc', ts, body, now), 'invalid');
  t.equal(verifyTelnyxSignature(pk, sig, '12.5', body, now), 'invalid');
  t.equal(ed25519PublicKey('short'), null);
  t.ok(ed25519PublicKey(pk));
});

t.test('frames: the documented start, media, dtmf, mark, error and stop; what we send', async (t) => {
  const start = parseTelnyxInbound(JSON.stringify({
    event: 'start',
    sequence_number: '1',
    stream_id: '32DE0DEA-53CB-4B21-89A4-9E1819C043BC',
    start: {
      user_id: '3E6F995F-85F7-4705-9741-53B116D28237',
      call_control_id: 'v2:T02llQxIyaRkhfRKxgAP8nY511EhFLizdvdUKJiSw8d6A9BborherQ',
      call_session_id: 'ff55a038-6f5d-11ef-9692-02420aeffb1f',
      from: '+13122010094',
      to: '+13122123456',
      tags: ['TAG1'],
      client_state: 'aGF2ZSBhIG5pY2UgZGF5ID1d',
      custom_parameters: { customer_id: 'customer_123' },
      media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
    },
  }));
  t.match(start, { ok: true, message: { event: 'start', callControlId: /^v2:/, clientState: 'aGF2ZSBhIG5pY2UgZGF5ID1d', mediaFormat: { encoding: 'PCMU', sampleRate: 8000, channels: 1 }, customParameters: { customer_id: 'customer_123' } } });
  const media = parseTelnyxInbound(JSON.stringify({ event: 'media', sequence_number: '4', media: { track: 'inbound', chunk: '2', timestamp: '5', payload: Buffer.from([1, 2, 3]).toString('base64') }, stream_id: 'x' }));
  t.match(media, { ok: true, message: { event: 'media', track: 'inbound', chunk: 2, timestampMs: 5 } });
  t.same(media.ok && media.message.event === 'media' ? [...media.message.audio] : null, [1, 2, 3]);
  t.match(parseTelnyxInbound('{"event":"dtmf","dtmf":{"digit":"#"}}'), { ok: true, message: { event: 'dtmf', digit: '#' } });
  t.match(parseTelnyxInbound('{"event":"dtmf","dtmf":{"digit":"x"}}'), { ok: false, error: { field: 'dtmf.digit' } });
  t.match(parseTelnyxInbound('{"event":"error","payload":{"code":100002,"title":"unknown_error","detail":"x"}}'), { ok: true, message: { code: '100002', title: 'unknown_error' } });
  t.match(parseTelnyxInbound('{"event":"stop","stop":{"user_id":"u","call_control_id":"v3:a"}}'), { ok: true, message: { event: 'stop', callControlId: 'v3:a' } });
  t.match(parseTelnyxInbound('{"event":"media","media":{"track":"inbound","payload":"a-_b"}}'), { ok: false, error: { field: 'media.payload' } });
  t.match(parseTelnyxInbound('nope'), { ok: false, error: { reason: 'not_json' } });
  t.match(parseTelnyxInbound('{"event":"start"}'), { ok: false, error: { field: 'start' } });

  t.equal(buildTelnyxMedia(Buffer.from([255, 0])), '{"event":"media","media":{"payload":"/wA="}}');
  t.equal(buildTelnyxClear(), '{"event":"clear"}');
  t.equal(buildTelnyxMark('turn_complete'), '{"event":"mark","mark":{"name":"turn_complete"}}');
  t.match(parseTelnyxOutbound(buildTelnyxMedia(Buffer.from([1]))), { ok: true, message: { event: 'media' } });

  const claim = { sessionId: '3f1c2d1e-0000-4000-8000-000000000000', token: 'abc' };
  t.same(decodeClientState(encodeClientState(claim)), claim);
  t.same(decodeClientState(encodeClientState({ refusal: 'busy' })), { refusal: 'busy' });
  t.equal(decodeClientState('aGF2ZSBhIG5pY2UgZGF5ID1d'), null, "someone else's client_state");
  t.equal(decodeClientState(null), null);
});

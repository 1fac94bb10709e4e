import t from 'tap';
import {
  buildClearMessage,
  buildInboundMessage,
  buildMarkMessage,
  buildMediaMessage,
  MAX_MESSAGE_BYTES,
  MediaStreamProtocolError,
  parseInboundMessage,
  parseOutboundMessage,
  type InboundMessage,
} from '../../src/carriers/twilio/media-stream-protocol.js';

const STREAM = 'MZ18ad3ab5a668481ce02b83e7395059f0';
const CALL = 'CA8d0d9b4f5a6e4c5b9b3d1d5f8a2e7c11';
const ACCOUNT = 'AC0123456789abcdef0123456789abcdef';

// The documented examples (Media Streams - WebSocket Messages), as Twilio sends them.
const DOCS = {
  connected: '{"event":"connected","protocol":"Call","version":"1.0.0"}',
  start: `{"event":"start","sequenceNumber":"1","start":{"accountSid":"${ACCOUNT}","streamSid":"${STREAM}","callSid":"${CALL}","tracks":["inbound"],"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1},"customParameters":{"FirstName":"Jane","LastName":"Doe","RemoteParty":"Bob"}},"streamSid":"${STREAM}"}`,
  media: `{"event":"media","sequenceNumber":"3","media":{"track":"outbound","chunk":"1","timestamp":"5","payload":"no+JhoaJjpzSHxAKBgYJDhtEopONiIaGiIyUn8ErGg8KCQkLDxcjPK6bkY2LioqMj5SdrkQlGRIPDQ0OEBUcKUq0n5aQjYyMjY+Tmqi9Oy0fGRYUExQWGR8qOsGqnZeTkI+Pj5CTl52rxT0rIBsXFRQUFRgcIy8+x6qdl5OQj4+PkJKVmqO1zjUmHxsYFxcXGBseJC0+yKiblJCOjY2NjpCSlpyluNY7KyQfHBoZGRkbHiMpNE7Ep52Xk5CPjo6PkJKWm6S0xUo0KiQgHh0cHB0fIiYtN0bSsaWdmJWSkZCQkJGTlpmepri/WT00LSgmJCMjIyQmKCwwNz9L2bqspaCdmpiXl5eXmJqcn6Oqs8TmSz42MS4sKionJycnKCorLS8zOD5GW9e+s6yno5+dnJubm5udn6GkqK+4xN5SRD04NTIwLy8vLy8wMjQ3Oz9GUGzVwLavq6ilo6KhoaGhoqOlqKuvtr/O/llKQj47ODY1NDQ0NDU2ODo8P0ZMXvDLvbeyrqyqqKempqanqKmrrrK2vcjfXU5HQT47OTg3NjY2Nzg5Oz1ARUtXcdHCurSwraupqKinp6eoqaqsr7K2vcbWfldMRkI/PTs6OTk5OTk6Oz1AQ0hOW3vUxLy2srCurKuqqqqqqqusra+ytru/yM/h/2JWT0xKSEdGRkZGRkdISUtNT1JWW2Rv9NrOx8G9ure1tLOysrKys7S1t7i7vsPI0Nvu/2lfWlZUUlFQUFBQUVJTVFZYW19ka3X+6d3Vz8vHxMHAvr29vLy8vb6/wMLFyMzR2N/p9P////17dW9rZ2ViYWBfX15eXl9fYGFiZGZpbXF2e4KOopWRkJCQkJGSlJeanqWsuMPR3u3/"},"streamSid":"${STREAM}"}`,
  stop: `{"event":"stop","sequenceNumber":"5","stop":{"accountSid":"${ACCOUNT}","callSid":"${CALL}"},"streamSid":"${STREAM}"}`,
  dtmf: `{"event":"dtmf","streamSid":"${STREAM}","sequenceNumber":"5","dtmf":{"track":"inbound_track","digit":"1"}}`,
  mark: `{"event":"mark","sequenceNumber":"4","streamSid":"${STREAM}","mark":{"name":"my label"}}`,
};

function ok<T>(r: { ok: true; message: T } | { ok: false; error: MediaStreamProtocolError }): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.reason}: ${r.error.message}`);
  return r.message;
}

t.test('parses every documented message Twilio sends', async (t) => {
  t.same(ok(parseInboundMessage(DOCS.connected)), { event: 'connected', protocol: 'Call', version: '1.0.0' });
  const start = ok(parseInboundMessage(DOCS.start));
  t.match(start, {
    event: 'start',
    sequenceNumber: 1,
    streamSid: STREAM,
    accountSid: ACCOUNT,
    callSid: CALL,
    tracks: ['inbound'],
    customParameters: { FirstName: 'Jane', LastName: 'Doe', RemoteParty: 'Bob' },
    mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
  });
  const media = ok(parseInboundMessage(Buffer.from(DOCS.media)));
  t.match(media, { event: 'media', sequenceNumber: 3, streamSid: STREAM, track: 'outbound', chunk: 1, timestampMs: 5 });
  if (media.event !== 'media') throw new Error('not media');
  t.ok(Buffer.isBuffer(media.audio));
  t.equal(media.audio.toString('base64'), media.payload, 'payload decodes and re-encodes to the same text');
  t.same(ok(parseInboundMessage(DOCS.stop)), { event: 'stop', sequenceNumber: 5, streamSid: STREAM, accountSid: ACCOUNT, callSid: CALL });
  t.same(ok(parseInboundMessage(DOCS.dtmf)), { event: 'dtmf', sequenceNumber: 5, streamSid: STREAM, track: 'inbound_track', digit: '1' });
  t.same(ok(parseInboundMessage(DOCS.mark)), { event: 'mark', sequenceNumber: 4, streamSid: STREAM, name: 'my label' });
});

t.test('inbound build → parse round trips', async (t) => {
  const audio = Buffer.from(Array.from({ length: 160 }, (_, i) => (i * 37) & 0xff));
  const messages: InboundMessage[] = [
    { event: 'connected', protocol: 'Call', version: '1.0.0' },
    { event: 'start', sequenceNumber: 1, streamSid: STREAM, accountSid: ACCOUNT, callSid: CALL, tracks: ['inbound'], customParameters: { session: 's1', note: 'a "quoted" <value>' }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
    { event: 'media', sequenceNumber: 2, streamSid: STREAM, track: 'inbound', chunk: 1, timestampMs: 0, payload: audio.toString('base64'), audio },
    { event: 'dtmf', sequenceNumber: 3, streamSid: STREAM, track: 'inbound_track', digit: '#' },
    { event: 'mark', sequenceNumber: 4, streamSid: STREAM, name: 'turn-1' },
    { event: 'stop', sequenceNumber: 5, streamSid: STREAM, accountSid: ACCOUNT, callSid: CALL },
  ];
  for (const m of messages) t.same(ok(parseInboundMessage(buildInboundMessage(m))), m, m.event);
  // Twilio's numbers are decimal strings on the wire.
  t.match(buildInboundMessage(messages[2]), '"chunk":"1","timestamp":"0"');
});

t.test('outbound builders produce exactly the documented shapes and parse back', async (t) => {
  const audio = Buffer.from([0xff, 0x7f, 0x00, 0x80]);
  t.equal(buildMediaMessage(STREAM, audio), `{"event":"media","streamSid":"${STREAM}","media":{"payload":"/38AgA=="}}`);
  t.equal(buildMediaMessage(STREAM, '/38AgA=='), buildMediaMessage(STREAM, audio), 'base64 text is passed through');
  t.equal(buildMarkMessage(STREAM, 'my label'), `{"event":"mark","streamSid":"${STREAM}","mark":{"name":"my label"}}`);
  t.equal(buildClearMessage(STREAM), `{"event":"clear","streamSid":"${STREAM}"}`);
  const media = ok(parseOutboundMessage(buildMediaMessage(STREAM, audio)));
  t.same(media, { event: 'media', streamSid: STREAM, payload: '/38AgA==', audio });
  t.same(ok(parseOutboundMessage(buildMarkMessage(STREAM, 'x"y'))), { event: 'mark', streamSid: STREAM, name: 'x"y' });
  t.same(ok(parseOutboundMessage(buildClearMessage(STREAM))), { event: 'clear', streamSid: STREAM });
});

t.test('tolerates fields Twilio may add and a missing sequenceNumber', async (t) => {
  const m = ok(parseInboundMessage(`{"event":"mark","streamSid":"${STREAM}","mark":{"name":"n","extra":1},"newField":true}`));
  t.same(m, { event: 'mark', sequenceNumber: null, streamSid: STREAM, name: 'n' });
  t.match(ok(parseInboundMessage(`{"event":"media","sequenceNumber":7,"streamSid":"${STREAM}","media":{"track":"inbound","chunk":2,"timestamp":20,"payload":""}}`)), { chunk: 2, timestampMs: 20, sequenceNumber: 7 });
});

t.test('malformed messages come back as typed errors, never throws', async (t) => {
  const cases: [string, string, string | null][] = [
    ['not json', 'not_json', null],
    ['[1,2]', 'not_object', null],
    ['"media"', 'not_object', null],
    ['null', 'not_object', null],
    ['{}', 'invalid_field', 'event'],
    ['{"event":7}', 'invalid_field', 'event'],
    ['{"event":"hello"}', 'unknown_event', null],
    ['{"event":"connected","protocol":"Call"}', 'invalid_field', 'version'],
    [`{"event":"start","streamSid":"${STREAM}"}`, 'invalid_field', 'start'],
    [`{"event":"start","start":{"streamSid":"${STREAM}","accountSid":"${ACCOUNT}","callSid":"${CALL}"}}`, 'invalid_field', 'start.mediaFormat'],
    [`{"event":"start","streamSid":"MZother","start":{"streamSid":"${STREAM}","accountSid":"${ACCOUNT}","callSid":"${CALL}","mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}}}`, 'invalid_field', 'streamSid'],
    [`{"event":"start","start":{"streamSid":"${STREAM}","accountSid":"${ACCOUNT}","callSid":"${CALL}","customParameters":{"a":1},"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}}}`, 'invalid_field', 'start.customParameters.a'],
    [`{"event":"start","start":{"streamSid":"${STREAM}","accountSid":"${ACCOUNT}","callSid":"${CALL}","tracks":"inbound","mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}}}`, 'invalid_field', 'start.tracks'],
    [`{"event":"start","start":{"streamSid":"${STREAM}","accountSid":"${ACCOUNT}","callSid":"${CALL}","mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":"8k","channels":1}}}`, 'invalid_field', 'start.mediaFormat.sampleRate'],
    [`{"event":"media","streamSid":"${STREAM}"}`, 'invalid_field', 'media'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"not base64!"}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"abc"}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"/38A-A=="}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"/38A_A=="}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"/38AgA=A"}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"/3=AgA=="}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"/38AgA==="}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"/38AgA"}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":" /38AgA=="}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"/38A\\ngA=="}}`, 'invalid_field', 'media.payload'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"-1","timestamp":"0","payload":""}}`, 'invalid_field', 'media.chunk'],
    [`{"event":"media","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":1.5,"payload":""}}`, 'invalid_field', 'media.timestamp'],
    [`{"event":"media","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":""}}`, 'invalid_field', 'streamSid'],
    [`{"event":"media","streamSid":"bad sid with spaces","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":""}}`, 'invalid_field', 'streamSid'],
    [`{"event":"media","sequenceNumber":"x","streamSid":"${STREAM}","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":""}}`, 'invalid_field', 'sequenceNumber'],
    [`{"event":"dtmf","streamSid":"${STREAM}","dtmf":{"track":"inbound_track","digit":"12"}}`, 'invalid_field', 'dtmf.digit'],
    [`{"event":"dtmf","streamSid":"${STREAM}","dtmf":{"track":"inbound_track","digit":"x"}}`, 'invalid_field', 'dtmf.digit'],
    [`{"event":"mark","streamSid":"${STREAM}","mark":{"name":""}}`, 'invalid_field', 'mark.name'],
    [`{"event":"stop","streamSid":"${STREAM}","stop":{"callSid":"${CALL}"}}`, 'invalid_field', 'stop.accountSid'],
  ];
  for (const [raw, reason, field] of cases) {
    const r = parseInboundMessage(raw);
    t.equal(r.ok, false, raw);
    if (r.ok) continue;
    t.type(r.error, MediaStreamProtocolError);
    t.equal(r.error.reason, reason, `${raw} → ${reason}`);
    if (field) t.equal(r.error.field, field, `${raw} → field ${field}`);
  }
  const big = parseInboundMessage(`{"event":"media","pad":"${'a'.repeat(MAX_MESSAGE_BYTES)}"}`);
  t.equal(big.ok ? null : big.error.reason, 'too_large');
  const outbound = parseOutboundMessage(`{"event":"stop","streamSid":"${STREAM}"}`);
  t.equal(outbound.ok ? null : outbound.error.reason, 'unknown_event', 'stop is not something we send');
  t.equal(parseOutboundMessage('{"event":"clear"}').ok, false, 'clear needs the streamSid');
});

t.test('random bytes never throw', async (t) => {
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pieces = ['{', '}', '"event"', ':', '"media"', '"start"', ',', '"media":', '{"payload":', '"AAAA"', '[', ']', 'null', '1', '"x"'];
  for (let i = 0; i < 2000; i++) {
    const raw = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
    const r = parseInboundMessage(raw);
    if (!r.ok) t.type(r.error, MediaStreamProtocolError);
  }
  t.pass('no throw');
});

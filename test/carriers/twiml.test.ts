import t from 'tap';
import { connectStreamTwiml, REFUSALS, sayAndHangupTwiml, xmlEscape } from '../../src/carriers/twilio/twiml.js';

const DECL = '<?xml version="1.0" encoding="UTF-8"?>';

t.test('connect + stream with parameters, byte for byte', async (t) => {
  const xml = connectStreamTwiml({ url: 'wss://media.example.com/v2/carrier/twilio', parameters: { session_id: 'abc', token: 't0k' } });
  t.equal(
    xml,
    `${DECL}<Response><Connect><Stream url="wss://media.example.com/v2/carrier/twilio"><Parameter name="session_id" value="abc"/><Parameter name="token" value="t0k"/></Stream></Connect></Response>`,
  );
  t.equal(connectStreamTwiml({ url: 'wss://m.example.com/s' }), `${DECL}<Response><Connect><Stream url="wss://m.example.com/s"/></Connect></Response>`);
  t.match(
    connectStreamTwiml({ url: 'wss://m.example.com/s', name: 'call', statusCallback: 'https://api.example.com/cb?a=1&b=2' }),
    '<Stream url="wss://m.example.com/s" name="call" statusCallback="https://api.example.com/cb?a=1&amp;b=2" statusCallbackMethod="POST"/>',
  );
});

t.test('every value is escaped: markup in a parameter cannot add elements', async (t) => {
  const xml = connectStreamTwiml({ url: 'wss://m.example.com/s', parameters: { 'a"b': `"/><Hangup/><Parameter name="x` } });
  t.notMatch(xml, '<Hangup/>');
  t.match(xml, '<Parameter name="a&quot;b" value="&quot;/&gt;&lt;Hangup/&gt;&lt;Parameter name=&quot;x"/>');
  t.equal(xmlEscape(`<a href='x'>&amp;</a>`), '&lt;a href=&apos;x&apos;&gt;&amp;amp;&lt;/a&gt;');
  t.equal(xmlEscape('line1\nline2\tx\r'), 'line1&#10;line2&#9;x&#13;', 'whitespace survives attribute normalisation');
  t.equal(xmlEscape('bell\u0007 nul\u0000 ok é 😀'), 'bell nul ok é 😀', 'characters XML cannot carry are dropped, others kept');
  t.equal(xmlEscape('lone \uD800 surrogate'), 'lone  surrogate');
});

t.test('stream urls: wss only, no query string (Twilio drops it; use parameters)', async (t) => {
  t.throws(() => connectStreamTwiml({ url: 'https://m.example.com/s' }), { code: 'VC_ERR_TWIML' });
  t.throws(() => connectStreamTwiml({ url: 'wss://m.example.com/s?token=abc' }), /parameters/);
  t.throws(() => connectStreamTwiml({ url: 'not a url' }), { code: 'VC_ERR_TWIML' });
});

t.test('polite refusal: spoken, escaped, then hang up', async (t) => {
  t.equal(sayAndHangupTwiml(REFUSALS.busy), `${DECL}<Response><Say>${REFUSALS.busy}</Say><Hangup/></Response>`);
  t.equal(
    sayAndHangupTwiml('Tom & Jerry <3', { language: 'en-GB', voice: 'Polly.Amy' }),
    `${DECL}<Response><Say voice="Polly.Amy" language="en-GB">Tom &amp; Jerry &lt;3</Say><Hangup/></Response>`,
  );
  for (const text of Object.values(REFUSALS)) t.match(text, /^Sorry, .+ Goodbye\.$/);
});

import t from 'tap';
import { SentenceSplitter, splitSentences } from '../../../src/providers/llm/sentences.js';
import { LocalEchoLlm } from '../../../src/providers/llm/local-echo.js';

t.test('splits whole text on sentence ends but not inside numbers, abbreviations, initials', async (t) => {
  t.same(splitSentences('Hello there. It costs 3.5 dollars. Dr. Smith and Mrs. Jones are in. J. R. R. Tolkien wrote it. See e.g. this one. Visit example.com today!'), [
    'Hello there.',
    'It costs 3.5 dollars.',
    'Dr. Smith and Mrs. Jones are in.',
    'J. R. R. Tolkien wrote it.',
    'See e.g. this one.',
    'Visit example.com today!',
  ]);
});

t.test('ellipses, question marks, quotes and brackets', async (t) => {
  t.same(splitSentences('Well... maybe not. Wait… What?! He said "go." (Then he left.) Done'), [
    'Well... maybe not.',
    'Wait…',
    'What?!',
    'He said "go."',
    '(Then he left.)',
    'Done',
  ]);
});

t.test('CJK full stops end sentences without spaces', async (t) => {
  t.same(splitSentences('你好。我很好！你呢？好的'), ['你好。', '我很好！', '你呢？', '好的']);
  t.same(splitSentences('こんにちは。元気です。'), ['こんにちは。', '元気です。']);
});

t.test('streamed tokens: waits when a dot could be a decimal point', async (t) => {
  const s = new SentenceSplitter();
  t.same(s.push('I have 3'), []);
  t.same(s.push('.'), [], 'cannot tell yet');
  t.same(s.push('5 apples'), []);
  t.same(s.push('. And'), ['I have 3.5 apples.']);
  t.same(s.push(' more.'), []);
  t.equal(s.flush(), 'And more.');
  t.equal(s.flush(), null);
});

t.test('newlines end a sentence; minChars joins short ones; reset drops', async (t) => {
  t.same(splitSentences('First line\nSecond line'), ['First line', 'Second line']);
  t.same(splitSentences('Ok. Sure. This is longer.', { minChars: 8 }), ['Ok. Sure.', 'This is longer.']);
  const s = new SentenceSplitter();
  s.push('Half a sen');
  s.reset();
  t.equal(s.flush(), null);
});

t.test('local echo answers with what the caller said, streamed', async (t) => {
  const llm = new LocalEchoLlm();
  let text = '';
  let end: unknown;
  for await (const e of llm.stream({ messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'hello there' }], signal: new AbortController().signal })) {
    if (e.type === 'text') text += e.text;
    else if (e.type === 'end') end = e;
  }
  t.equal(text, 'You said: hello there');
  t.match(end, { finishReason: 'stop' });
  const ac = new AbortController();
  ac.abort();
  let kind = '';
  try {
    for await (const _ of llm.stream({ messages: [{ role: 'user', content: 'a b' }], signal: ac.signal })) void _;
  } catch (err) {
    kind = (err as { kind: string }).kind;
  }
  t.equal(kind, 'aborted');
});

import t from 'tap';
import { cutAtWord, HeardText } from '../../src/conversation/realtime-heard.js';

// The heard words of a realtime answer, from interleaved audio and transcript deltas.

t.test('text ahead of the audio is spread over the audio that follows', async (t) => {
  const h = new HeardText();
  h.addText('Hello there, ');
  h.addText('how are you today?');
  h.addAudio(1000);
  t.equal(h.heardAt(0), '');
  t.equal(h.heardAt(500), 'Hello there,', 'half the audio: the words in the first half of the text');
  t.equal(h.heardAt(1000), 'Hello there, how are you today?');
  t.equal(h.fullText, 'Hello there, how are you today?');
});

t.test('interleaved deltas: each stretch of text belongs to the audio after it', async (t) => {
  const h = new HeardText();
  h.addText('One two ');
  h.addAudio(100);
  h.addText('three four ');
  h.addAudio(100);
  h.addText('five six.');
  h.addAudio(100);
  t.equal(h.heardAt(50), 'One');
  t.equal(h.heardAt(99), 'One two');
  t.equal(h.heardAt(100), 'One two');
  t.equal(h.heardAt(150), 'One two three');
  t.equal(h.heardAt(200), 'One two three four');
  t.equal(h.heardAt(10_000), 'One two three four five six.');
});

t.test('audio before any text says nothing; a partly reached word is not counted', async (t) => {
  const h = new HeardText();
  h.addAudio(100);
  h.addText('Wonderful news');
  h.addAudio(100);
  t.equal(h.heardAt(50), '');
  t.equal(h.heardAt(130), '', 'inside the first word');
  t.equal(h.heardAt(175), 'Wonderful');
  t.equal(cutAtWord('abc def', 3), 'abc');
  t.equal(cutAtWord('abc def', 5), 'abc');
  t.equal(cutAtWord('abc  def ', 99), 'abc def');
});

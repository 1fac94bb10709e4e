import t from 'tap';
import { execFileSync } from 'node:child_process';
import { LocalEspeakTts } from '../../../src/providers/tts/local-espeak.js';
import { collectPcm, failure, signal } from './helpers.js';

let installed = true;
try {
  execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
} catch {
  installed = false;
}

t.test('synthesizes 22.05 kHz PCM from espeak-ng', { skip: installed ? false : 'espeak-ng not installed' }, async (t) => {
  const tts = new LocalEspeakTts();
  t.equal(tts.outputSampleRateHz(), 22050);
  const { pcm } = await collectPcm(tts.synthesize({ text: 'Hello, this is a test.', voice: 'en-us', model: 'espeak-ng', sampleRateHz: 16000, signal: signal() }));
  t.ok(pcm.length > 22050 * 0.5, `about a second of audio (${pcm.length} samples)`);
  let peak = 0;
  for (const s of pcm) peak = Math.max(peak, Math.abs(s));
  t.ok(peak > 1000, 'not silence');
});

t.test('abort kills the process promptly', { skip: installed ? false : 'espeak-ng not installed' }, async (t) => {
  const ac = new AbortController();
  const tts = new LocalEspeakTts();
  const started = Date.now();
  const err = await failure(async () => {
    for await (const _ of tts.synthesize({ text: 'word '.repeat(400), voice: 'en-us', model: 'espeak-ng', sampleRateHz: 22050, signal: ac.signal })) ac.abort();
  });
  t.equal(err.kind, 'aborted');
  t.ok(Date.now() - started < 2000);
});

t.test('bad voice names are refused; a missing binary is a clear error', async (t) => {
  let err = await failure(collectPcm(new LocalEspeakTts().synthesize({ text: 'x', voice: '--help', model: 'espeak-ng', sampleRateHz: 22050, signal: signal() })));
  t.equal(err.kind, 'bad_request');
  err = await failure(collectPcm(new LocalEspeakTts({ binary: '/nonexistent/espeak-ng' }).synthesize({ text: 'x', voice: 'en-us', model: 'espeak-ng', sampleRateHz: 22050, signal: signal() })));
  t.equal(err.code, 'not_installed');
  t.match(err.message, /espeak-ng is not installed/);
});

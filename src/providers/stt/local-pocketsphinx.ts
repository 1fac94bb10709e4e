import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { abortedError, ProviderError, timeoutError } from '../errors.js';
import type { SttAdapter, SttOpenOptions, SttSession } from '../types.js';
import { findLocalEngines } from '../verify/local.js';
import { encodeWav } from '../tts/pcm.js';
import { UtteranceSession } from './utterance.js';

// The `local` provider's `pocketsphinx-en-us` model: each utterance (cut by the engine's VAD)
// is written as a 16 kHz WAV and decoded by the PocketSphinx command line from the Debian
// packages `pocketsphinx` (pocketsphinx_continuous -infile) and `pocketsphinx-en-us` (the
// model). PocketSphinx 5 (`pocketsphinx single file.wav`, JSON output) works too.

const PROVIDER = 'PocketSphinx';
const MODEL_RATE_HZ = 16000;

export interface PocketsphinxOptions {
  /** pocketsphinx_continuous or pocketsphinx; default: found on $PATH. */
  binary?: string;
  /** Directory holding en-us/, en-us.lm.bin and cmudict-en-us.dict. */
  modelDir?: string;
  /** Budget for one utterance beyond twice its duration (model loading), default 20 s. */
  baseTimeoutMs?: number;
}

/** Linear-interpolation resampling to the model's 16 kHz (enough for recognition). */
export function resampleLinear(pcm: Int16Array, fromHz: number, toHz: number): Int16Array {
  if (fromHz === toHz) return pcm;
  const ratio = fromHz / toHz;
  const out = new Int16Array(Math.floor(pcm.length / ratio));
  for (let i = 0; i < out.length; i++) {
    const x = i * ratio;
    const a = Math.floor(x);
    const b = Math.min(a + 1, pcm.length - 1);
    out[i] = Math.round(pcm[a] + (pcm[b] - pcm[a]) * (x - a));
  }
  return out;
}

export function notInstalled(what: string): ProviderError {
  return new ProviderError('bad_request', `${what} is not installed (Debian packages pocketsphinx and pocketsphinx-en-us)`, { provider: PROVIDER, code: 'not_installed' });
}

export class LocalPocketsphinxStt implements SttAdapter {
  readonly provider = 'local';
  readonly streaming = false;

  constructor(private readonly opts: PocketsphinxOptions = {}) {}

  async open(o: SttOpenOptions): Promise<SttSession> {
    if (o.language && !/^en\b/i.test(o.language)) {
      throw new ProviderError('bad_request', `${PROVIDER} here only has a US English model`, { provider: PROVIDER, code: 'language' });
    }
    let { binary, modelDir } = this.opts;
    if (!binary || !modelDir) {
      const found = await findLocalEngines();
      binary ??= found.pocketsphinx ?? undefined;
      modelDir ??= found.pocketsphinxModel ?? undefined;
    }
    if (!binary) throw notInstalled('pocketsphinx');
    if (!modelDir) throw notInstalled('the PocketSphinx US English model');
    const bin = binary;
    const dir = modelDir;
    const base = this.opts.baseTimeoutMs ?? 20_000;
    const transcribe = (pcm: Int16Array, signal: AbortSignal) =>
      decode(bin, dir, resampleLinear(pcm, o.sampleRateHz, MODEL_RATE_HZ), signal, base + (2000 * pcm.length) / o.sampleRateHz);
    return new UtteranceSession(PROVIDER, o.sampleRateHz, transcribe, o.signal);
  }
}

async function decode(binary: string, modelDir: string, pcm16k: Int16Array, signal: AbortSignal, timeoutMs: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vas-ps-'));
  const wav = join(dir, 'utterance.wav');
  try {
    await writeFile(wav, encodeWav(pcm16k, MODEL_RATE_HZ));
    const model = ['-hmm', join(modelDir, 'en-us'), '-lm', join(modelDir, 'en-us.lm.bin'), '-dict', join(modelDir, 'cmudict-en-us.dict')];
    const v5 = basename(binary) === 'pocketsphinx';
    const args = v5 ? [...model, '-loglevel', 'FATAL', 'single', wav] : ['-infile', wav, ...model, '-logfn', '/dev/null'];
    const out = await run(binary, args, signal, timeoutMs);
    if (!v5) return out.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
    return out
      .split('\n')
      .filter((l) => l.trim().startsWith('{'))
      .map((l) => (JSON.parse(l) as { t?: string }).t ?? '')
      .join(' ');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(binary: string, args: string[], signal: AbortSignal, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortedError(PROVIDER));
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    let failure: ProviderError | null = null;
    const kill = (e: ProviderError) => {
      failure ??= e;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(timeoutError(PROVIDER, 'first byte', Math.round(timeoutMs))), timeoutMs);
    const onAbort = () => kill(abortedError(PROVIDER));
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.on('error', (err: NodeJS.ErrnoException) => (failure ??= err.code === 'ENOENT' ? notInstalled('pocketsphinx') : new ProviderError('unavailable', `${PROVIDER} could not start`, { provider: PROVIDER, cause: err })));
    child.on('close', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else if (code !== 0) reject(new ProviderError('unavailable', `${PROVIDER} failed (exit ${code})`, { provider: PROVIDER }));
      else resolve(stdout);
    });
  });
}

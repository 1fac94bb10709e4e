import { spawn } from 'node:child_process';
import { abortedError, ProviderError, protocolError, timeoutError } from '../errors.js';
import type { TtsAdapter, TtsRequest, Timeouts } from '../types.js';
import { resolveTimeouts } from '../types.js';
import { PcmAssembler, WavStripper } from './pcm.js';

// The `local` provider's `espeak-ng` model: runs `espeak-ng --stdout` (Debian package
// espeak-ng) with the text on stdin, and streams the WAV it writes (22.05 kHz mono 16-bit,
// with a placeholder size since it is written as it goes) as PCM chunks.

const PROVIDER = 'espeak-ng';
export const ESPEAK_RATE_HZ = 22050;
const DEFAULT_WPM = 175;
const VOICE = /^[A-Za-z][A-Za-z0-9_+-]{0,39}$/;

export interface EspeakOptions {
  /** The binary (default `espeak-ng` on $PATH). */
  binary?: string;
  timeouts?: Partial<Timeouts>;
}

export class LocalEspeakTts implements TtsAdapter {
  readonly provider = 'local';
  private readonly binary: string;
  private readonly timeouts: Timeouts;

  constructor(opts: EspeakOptions = {}) {
    this.binary = opts.binary ?? 'espeak-ng';
    this.timeouts = resolveTimeouts(opts.timeouts);
  }

  outputSampleRateHz(): number {
    return ESPEAK_RATE_HZ;
  }

  async *synthesize(req: TtsRequest): AsyncGenerator<Int16Array, void, undefined> {
    if (req.signal.aborted) throw abortedError(PROVIDER);
    const voice = req.voice && req.voice !== 'default' ? req.voice : 'en-us';
    if (!VOICE.test(voice)) throw new ProviderError('bad_request', `${PROVIDER}: not a voice name`, { provider: PROVIDER, code: 'voice' });
    const wpm = Math.round(DEFAULT_WPM * Math.min(3, Math.max(0.5, req.speed ?? 1)));
    const child = spawn(this.binary, ['--stdout', '-v', voice, '-s', String(wpm)], { stdio: ['pipe', 'pipe', 'pipe'] });

    // Set from callbacks; no initialiser, so TS does not narrow it to "never set" below.
    let failure: ProviderError | undefined;
    const fail = (e: ProviderError) => {
      failure ??= e;
      child.kill('SIGKILL');
    };
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-500)));
    const exited = new Promise<number | null>((resolve) => {
      child.on('error', (err: NodeJS.ErrnoException) => {
        fail(
          err.code === 'ENOENT'
            ? new ProviderError('bad_request', 'espeak-ng is not installed (Debian package espeak-ng)', { provider: PROVIDER, code: 'not_installed' })
            : new ProviderError('unavailable', `${PROVIDER} could not start`, { provider: PROVIDER, cause: err }),
        );
        resolve(null);
      });
      child.on('close', (code) => resolve(code));
    });
    const onAbort = () => fail(abortedError(PROVIDER));
    req.signal.addEventListener('abort', onAbort, { once: true });
    child.stdin.on('error', () => {}); // a dead child is reported through 'error'/'close'
    child.stdin.end(req.text.replace(/\r?\n/g, ' ') + '\n');

    const wav = new WavStripper(false);
    const asm = new PcmAssembler();
    let timer: NodeJS.Timeout | undefined;
    const arm = (phase: 'first byte' | 'idle', ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => fail(timeoutError(PROVIDER, phase, ms)), ms);
    };
    arm('first byte', this.timeouts.firstByteMs);
    try {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        clearTimeout(timer); // a slow consumer is not a stuck engine
        if (failure) break;
        let bytes: Uint8Array;
        try {
          bytes = wav.push(chunk);
        } catch (err) {
          throw protocolError(PROVIDER, 'output that is not WAV', err);
        }
        if (wav.format && (wav.format.sampleRateHz !== ESPEAK_RATE_HZ || wav.format.bitsPerSample !== 16 || wav.format.channels !== 1)) {
          throw protocolError(PROVIDER, `WAV at ${wav.format.sampleRateHz} Hz, ${wav.format.bitsPerSample} bit`);
        }
        const pcm = bytes.byteLength ? asm.push(bytes) : null;
        if (pcm) yield pcm;
        arm('idle', this.timeouts.idleMs);
      }
      clearTimeout(timer);
      const code = await exited;
      if (failure) throw failure;
      if (code !== 0) {
        const voiceProblem = /voice/i.test(stderr);
        throw new ProviderError(voiceProblem ? 'bad_request' : 'unavailable', `${PROVIDER} failed${voiceProblem ? ' (unknown voice)' : ''} (exit ${code})`, { provider: PROVIDER });
      }
    } finally {
      clearTimeout(timer);
      req.signal.removeEventListener('abort', onAbort);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }
}

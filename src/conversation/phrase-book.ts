import { isProviderError, type ProviderError } from '../providers/errors.js';
import type { CallAgent, CallConfig } from './call-config.js';
import { Phrases } from './phrases.js';
import { synthesizeWhole } from './speaker.js';

// Fixed phrases (greeting, filler, reminder, goodbyes, acknowledgement) synthesized once per
// voice and kept in a process-wide cache, so the next call with the same agent voice starts
// its greeting without waiting for TTS. Keys carry the project and account: one tenant's
// audio is never served to another.

const MAX_CACHE_BYTES = 32 * 1024 * 1024;
const cache = new Map<string, Int16Array>();
let cacheBytes = 0;

function remember(key: string, pcm: Int16Array): void {
  cache.set(key, pcm);
  cacheBytes += pcm.byteLength;
  for (const [k, v] of cache) {
    if (cacheBytes <= MAX_CACHE_BYTES) break;
    cache.delete(k);
    cacheBytes -= v.byteLength;
  }
}

export class PhraseBook {
  private readonly inFlight = new Map<string, Promise<Int16Array | null>>();
  private readonly prefix: string;

  constructor(
    private readonly config: CallConfig,
    private readonly signal: AbortSignal,
    /** A phrase could not be synthesized (the engine decides whether the call goes on). */
    private readonly failed: (err: ProviderError) => void = () => {},
  ) {
    const tts = config.adapters.tts!;
    this.prefix = [config.projectId, config.accountIds.tts ?? '', tts.adapter.provider, tts.model, tts.voice, tts.speed ?? 1, config.sampleRateOut].join('|');
  }

  /** Starts synthesizing the phrases this agent may need. */
  prepare(agent: CallAgent): void {
    const wanted: string[] = [Phrases.maxDurationGoodbye];
    if (agent.deadAirSeconds !== null) wanted.push(Phrases.filler);
    if (agent.idleWarnSeconds !== null) wanted.push(Phrases.idleReminder);
    if (agent.idleHangupSeconds !== null) wanted.push(Phrases.idleGoodbye);
    if (agent.backchannel) wanted.push(Phrases.acknowledgement);
    for (const text of wanted) void this.get(text);
  }

  /** The phrase's audio at the call's output rate; null when synthesis failed. */
  get(text: string): Promise<Int16Array | null> {
    const key = `${this.prefix}|${text}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key); // most recently used goes last
      cache.set(key, hit);
      return Promise.resolve(hit);
    }
    let p = this.inFlight.get(key);
    if (!p) {
      p = synthesizeWhole(this.config.adapters.tts!, text, this.config.sampleRateOut, this.signal).then(
        (pcm) => {
          if (pcm.length) remember(key, pcm);
          return pcm.length ? pcm : null;
        },
        (err: unknown) => {
          this.inFlight.delete(key);
          if (isProviderError(err) && err.kind !== 'aborted') this.failed(err);
          return null;
        },
      );
      this.inFlight.set(key, p);
    }
    return p;
  }

  async durationMs(text: string): Promise<number | null> {
    const pcm = await this.get(text);
    return pcm ? (pcm.length * 1000) / this.config.sampleRateOut : null;
  }
}

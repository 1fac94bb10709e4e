import { ProviderError } from '../../../src/providers/errors.js';
import { concatPcm } from '../../../src/providers/tts/pcm.js';

export async function failure(p: Promise<unknown> | (() => Promise<unknown>)): Promise<ProviderError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    if (err instanceof ProviderError) return err;
    throw err;
  }
  throw new Error('expected a ProviderError');
}

/** Every item of an async iterable (provider events), in order. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) out.push(e);
  return out;
}

export async function collectPcm(it: AsyncIterable<Int16Array>): Promise<{ pcm: Int16Array; chunks: number }> {
  const parts: Int16Array[] = [];
  for await (const c of it) parts.push(c);
  return { pcm: concatPcm(parts), chunks: parts.length };
}

/** A recognisable ramp of `n` samples. */
export function ramp(n: number, start = 0): Int16Array {
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = ((start + i * 37) % 60000) - 30000;
  return out;
}

export const signal = () => new AbortController().signal;

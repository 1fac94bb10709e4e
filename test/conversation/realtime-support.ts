import type { Harness } from '../helpers/harness.js';
import type { ReceivedSocket } from '../fakes/wire/server.js';
import { verifiedAccount } from './fixtures.js';

// What the realtime-engine tests share: the pipeline on an OpenAI account verified against the
// wire fake, the client events the fake received, and a poll for what the call has done so far.

/** A `realtime` pipeline on an `openai` account verified against `baseUrl`; `stage` adds fields. */
export const realtimePipeline = (h: Harness, baseUrl: string, stage: Record<string, unknown> = {}) => async (projectId: string) => {
  const id = await verifiedAccount(h, projectId, 'openai', baseUrl);
  return { realtime: { account_id: id, model: 'gpt-realtime', voice: 'marin', ...stage } };
};

export type Msg = Record<string, any>;
/** The client events of `type` the fake's socket received, in order. */
export const sent = (sock: ReceivedSocket, type: string) => (sock.messages as Msg[]).filter((m) => m.type === type);
/** Words as the fake streams them: each after the first keeps its leading space. */
export const words = (text: string) => text.split(/(?=\s)/);

/** Polls `f` every 10 ms until it gives something truthy, which it returns. */
export async function until<T>(what: string, f: () => T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v) return v;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

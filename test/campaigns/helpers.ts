import { sendStatusCallback } from '../fakes/twilio/callbacks.js';
import type { PlacedCall } from '../fakes/twilio/rest.js';
import { openStream, until, type PhoneTenant, type TelephonyBed } from '../telephony/helpers.js';

// Campaign tests: the API to create and steer campaigns, and a "phone network" that answers the
// calls the fake Twilio receives the way the real one would (signed status callbacks to our
// API), with an outcome per callee number, while counting how many calls are live at once.

export async function postCampaign(bed: TelephonyBed, p: PhoneTenant, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return bed.h.app.inject({ method: 'POST', url: '/v2/voice/campaigns', headers: { ...p.tenant.machine, ...headers }, payload: { name: 'spring', agent_id: p.agentId, from_numbers: [p.from], ...body } });
}

export async function campaignAction(bed: TelephonyBed, p: PhoneTenant, id: string, action: 'pause' | 'resume' | 'cancel') {
  return bed.h.app.inject({ method: 'POST', url: `/v2/voice/campaigns/${id}/${action}`, headers: p.tenant.machine });
}

export async function getCampaign(bed: TelephonyBed, p: PhoneTenant, id: string, query = '') {
  const res = await bed.h.app.inject({ method: 'GET', url: `/v2/voice/campaigns/${id}${query}`, headers: p.tenant.machine });
  if (res.statusCode !== 200) throw new Error(`get campaign ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** `count` distinct callee numbers (+1 212 555 xxxx … ), in order. */
export function callees(count: number, base = 2_125_550_000): string[] {
  return Array.from({ length: count }, (_, i) => `+1${base + i}`);
}

export type NetworkOutcome = 'answered' | 'busy' | 'no-answer';

export interface FakeNetwork {
  /** Calls placed at the fake carrier, per callee number. */
  dialsTo: Map<string, number>;
  /** The most calls that were placed and not yet ended at any moment. */
  maxLive: () => number;
  live: () => number;
  ended: () => number;
  stop: () => Promise<void>;
}

/**
 * Answers every call the fake Twilio receives: `busy` and `no-answer` through the status
 * callback after `holdMs`; `answered` is reported answered (in-progress), opens the call's media
 * stream on the bed's media node, talks for `holdMs` once the node has taken the call, hangs up
 * (stream stop) and reports completed.
 */
export function startNetwork(bed: TelephonyBed, outcome: (to: string, attempt: number) => NetworkOutcome, holdMs = 30): FakeNetwork {
  const dialsTo = new Map<string, number>();
  const { fake } = bed;
  let seen = 0;
  let live = 0;
  let maxLive = 0;
  let ended = 0;
  let stopped = false;
  const pending = new Set<Promise<void>>();

  const finish = async (call: PlacedCall, to: string, attempt: number) => {
    const result = outcome(to, attempt);
    if (result === 'answered') {
      await sendStatusCallback(fake, call.sid, 'in-progress');
      const stream = await openStream(call, fake.account(call.accountSid)!);
      const sessionId = new URL(call.form.StatusCallback[0]).searchParams.get('session_id')!;
      await until(async () => (await bed.h.ctx.sql`select 1 from voice_sessions where id = ${sessionId} and media_connected_at is not null`).length === 1, 10_000, 'media connected');
      await new Promise((r) => setTimeout(r, holdMs));
      await stream.hangUp();
      await sendStatusCallback(fake, call.sid, 'completed', { durationSeconds: 1 });
    } else {
      await new Promise((r) => setTimeout(r, holdMs));
      const answer = await sendStatusCallback(fake, call.sid, result);
      if (answer.status >= 300) throw new Error(`status callback ${answer.status}: ${answer.body}`);
    }
    live--;
    ended++;
  };

  const timer = setInterval(() => {
    while (!stopped && seen < fake.calls.length) {
      const call = fake.calls[seen++];
      const to = call.form.To[0];
      const attempt = (dialsTo.get(to) ?? 0) + 1;
      dialsTo.set(to, attempt);
      live++;
      maxLive = Math.max(maxLive, live);
      const job = finish(call, to, attempt).catch((err: unknown) => console.error('fake network', err));
      pending.add(job);
      void job.finally(() => pending.delete(job));
    }
  }, 5);

  return {
    dialsTo,
    maxLive: () => maxLive,
    live: () => live,
    ended: () => ended,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await Promise.all(pending);
    },
  };
}

import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { twilioStreamRoute } from '../../src/media/twilio-stream-route.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { startMediaNode, type MediaNodeOptions } from '../../src/roles/media.js';
import type { MediaServer } from '../../src/media/server.js';
import { processDial } from '../../src/telephony/dial.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { createTenant, type Tenant } from '../helpers/fixtures.js';
import { startFakeTwilio, type FakeAccount, type FakeTwilio, type PlacedCall } from '../fakes/twilio/rest.js';
import { FakeMediaStream } from '../fakes/twilio/media-client.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';

// A telephony test bed: the API listening on a real port (Twilio's callbacks are real HTTP
// requests, signed over the public URL), the fake Twilio REST API, and optionally the media
// server with the Twilio stream route. PUBLIC_BASE_URL and PUBLIC_MEDIA_URL are pointed at the
// ports actually bound, as an operator would configure them.

export interface TelephonyBed {
  h: Harness;
  fake: FakeTwilio;
  media: MediaServer | null;
  baseUrl: string;
  close: () => Promise<void>;
}

export async function startBed(opts: { media?: boolean | Partial<MediaNodeOptions>; env?: Record<string, string> } = {}): Promise<TelephonyBed> {
  const h = await startHarness({ env: opts.env });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  h.ctx.config.PUBLIC_BASE_URL = baseUrl;
  const fake = await startFakeTwilio();
  let media: MediaServer | null = null;
  if (opts.media) {
    const nodeId = randomUUID();
    const extra = typeof opts.media === 'object' ? opts.media : {};
    media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1', nodeId, routes: [twilioStreamRoute(h.ctx, nodeId)], ...extra });
    h.ctx.config.PUBLIC_MEDIA_URL = `ws://127.0.0.1:${media.port}`;
  }
  return {
    h,
    fake,
    media,
    baseUrl,
    close: async () => {
      await media?.drain(0);
      await fake.close();
      await h.close();
    },
  };
}

export interface PhoneTenant {
  tenant: Tenant;
  account: FakeAccount;
  carrierId: string;
  agentId: string;
  from: string;
}

let numberSeq = 100;
/** A fresh E.164 number for a test. */
export const nextNumber = () => `+1415555${String(numberSeq++).padStart(4, '0')}`;

/** A funded tenant with a verified Twilio carrier (on the fake), an outbound number and an agent. */
export async function phoneTenant(
  bed: TelephonyBed,
  opts: { record?: boolean; wallet?: bigint; maxConcurrent?: number; inboundAgent?: boolean; agentActive?: boolean } = {},
): Promise<PhoneTenant> {
  const { h, fake } = bed;
  const tenant = await createTenant(h);
  const account = fake.addAccount();
  const created = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${tenant.projectId}/carriers`,
    headers: tenant.bearer,
    payload: { kind: 'twilio', label: 'main line', credentials: { account_sid: account.sid, auth_token: account.token }, base_url: fake.baseUrl },
  });
  if (created.statusCode !== 201) throw new Error(`carrier create ${created.statusCode}: ${created.body}`);
  const carrierId = created.json().id as string;
  const verified = await h.app.inject({ method: 'POST', url: `/console/v2/projects/${tenant.projectId}/carriers/${carrierId}/verify`, headers: tenant.bearer });
  if (verified.json().status !== 'verified') throw new Error(`carrier not verified: ${verified.body}`);
  const agent = await createAgent(h, tenant.projectId, { record: opts.record ?? false, storeTranscript: false, maxDurationSeconds: 120, active: opts.agentActive ?? true });
  const from = nextNumber();
  const num = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${tenant.projectId}/carriers/${carrierId}/numbers`,
    headers: tenant.bearer,
    payload: { e164: from, outbound_enabled: true, agent_id: opts.inboundAgent ? agent.agentId : null },
  });
  if (num.statusCode !== 201) throw new Error(`number ${num.statusCode}: ${num.body}`);
  await fund(h, tenant.projectId, opts.wallet ?? 1000n * MINUTE_NANO);
  if (opts.maxConcurrent !== undefined) await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: opts.maxConcurrent });
  return { tenant, account, carrierId, agentId: agent.agentId, from };
}

export async function placeOutbound(bed: TelephonyBed, p: PhoneTenant, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return bed.h.app.inject({
    method: 'POST',
    url: '/v2/voice/sessions/outbound',
    headers: { ...p.tenant.machine, ...headers },
    payload: { agent_id: p.agentId, from: p.from, to: '+14155559999', ...body },
  });
}

export async function sessionRow(h: Harness, id: string) {
  const [row] = await h.ctx.sql`select * from voice_sessions where id = ${id}`;
  return row;
}

/** Admits an outbound call and dials it (the worker's processor, called directly). */
export async function dialed(bed: TelephonyBed, p: PhoneTenant, body: Record<string, unknown> = {}): Promise<{ sessionId: string; call: PlacedCall }> {
  const res = await placeOutbound(bed, p, body);
  if (res.statusCode !== 202) throw new Error(`outbound ${res.statusCode}: ${res.body}`);
  const sessionId = res.json().session.id as string;
  const outcome = await processDial(bed.h.ctx, sessionId);
  if (outcome.kind !== 'dialed') throw new Error(`dial ${JSON.stringify(outcome)}`);
  const call = bed.fake.calls.find((c) => c.sid === outcome.callSid)!;
  return { sessionId, call };
}

/** What our TwiML tells Twilio to connect: the stream URL and its <Parameter>s. */
export function streamOf(twiml: string): { url: string; parameters: Record<string, string> } {
  const url = /<Stream url="([^"]+)"/.exec(twiml)?.[1];
  if (!url) throw new Error(`no <Stream> in ${twiml}`);
  const parameters: Record<string, string> = {};
  for (const m of twiml.matchAll(/<Parameter name="([^"]+)" value="([^"]+)"\/>/g)) parameters[m[1]] = m[2];
  return { url: url.replace(/&amp;/g, '&'), parameters };
}

/** Twilio answering the call: it opens the stream of the call's TwiML and sends connected + start. */
export async function openStream(call: PlacedCall, account: FakeAccount, overrides: { customParameters?: Record<string, string>; accountSid?: string } = {}): Promise<FakeMediaStream> {
  const { url, parameters } = streamOf(call.form.Twiml[0]);
  const stream = await FakeMediaStream.connect(url, { accountSid: overrides.accountSid ?? account.sid, callSid: call.sid, customParameters: overrides.customParameters ?? parameters });
  stream.begin();
  return stream;
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not met in time`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

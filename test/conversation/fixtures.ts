import { createAgent } from '../../src/agents/service.js';
import { AgentCreateBody } from '../../src/contract/agents.js';
import { createProviderAccount } from '../../src/db/repos/provider-accounts.js';
import { startMediaNode, type MediaNodeOptions } from '../../src/roles/media.js';
import type { MediaServer } from '../../src/media/server.js';
import { walletCredit } from '../../src/sessions/wallet.js';
import { admitSession } from '../../src/sessions/admission.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { startProviderFakes, type ProviderScript } from '../fakes/wire/providers.js';
import { createTenant } from '../helpers/fixtures.js';
import { speak } from '../native/corpus.js';
import { ScriptedCaller } from './caller.js';

// Calls against the conversation engine: a tenant with verified provider accounts pointing
// at the local wire fakes, an agent made through the real agents service, a funded wallet and
// a media server running agent calls.

export type Stages = 'openai' | 'local' | 'mixed';

export async function verifiedAccount(h: Harness, projectId: string, provider: 'openai' | 'deepgram' | 'elevenlabs' | 'anthropic' | 'local', baseUrl: string | null): Promise<string> {
  const acct = await createProviderAccount(h.ctx, projectId, { provider, label: provider, apiKey: provider === 'local' ? null : `sk-test-${provider}-0000`, baseUrl: provider === 'local' ? null : baseUrl });
  await h.ctx.sql`update provider_accounts set status = 'verified' where id = ${acct.id}`;
  return acct.id;
}

export async function openAiPipeline(h: Harness, projectId: string, baseUrl: string) {
  const id = await verifiedAccount(h, projectId, 'openai', baseUrl);
  return {
    stt: { account_id: id, model: 'gpt-4o-mini-transcribe' },
    llm: { account_id: id, model: 'gpt-4.1-mini' },
    tts: { account_id: id, model: 'gpt-4o-mini-tts', voice: 'alloy' },
  };
}

export interface CallSetup {
  projectId: string;
  agentId: string;
  webhookSecret: string;
}

/** A funded tenant and an agent whose pipeline `pipeline(projectId)` builds. */
export async function setupAgent(h: Harness, pipeline: (projectId: string) => Promise<Record<string, unknown>>, fields: Record<string, unknown> = {}): Promise<CallSetup> {
  const tenant = await createTenant(h);
  const projectId = tenant.projectId;
  await walletCredit(h.ctx, projectId, 10_000_000_000n);
  const p = await pipeline(projectId);
  const body = AgentCreateBody.parse({ name: 'test agent', prompt: 'You are a helpful agent for {{name}}.', pipeline_mode: 'cascade', pipeline_config: p, language: 'en-US', backchannel: false, variables: [{ name: 'name', required: false }], ...fields });
  const created = await createAgent(h.ctx, projectId, body);
  return { projectId, agentId: created.agent.id, webhookSecret: created.webhook_secret };
}

export async function startAgentMedia(h: Harness, opts: Partial<MediaNodeOptions> = {}): Promise<MediaServer> {
  return startMediaNode(h.ctx, { port: 0, host: '127.0.0.1', pipeline: 'agent', ...opts });
}

/**
 * Admits a session and connects a scripted caller to it. `firstWords` (at the input rate) fill
 * the socket's first frames, as when the caller is already talking as it connects.
 */
export async function call(h: Harness, media: MediaServer, setup: CallSetup, body: Record<string, unknown> = {}, firstWords?: Int16Array): Promise<{ caller: ScriptedCaller; sessionId: string }> {
  const rateIn = (body.sample_rate_in as number) ?? 16000;
  const rateOut = (body.sample_rate_out as number) ?? 24000;
  const admitted = await admitSession(h.ctx, setup.projectId, {
    agent_id: setup.agentId,
    sample_rate_in: rateIn,
    sample_rate_out: rateOut,
    variables: { name: 'Ann' },
    encoding: 'pcm16',
    ...body,
  } as never);
  const url = new URL(admitted.ws_url);
  url.port = String(media.port);
  const caller = new ScriptedCaller(url.toString(), rateIn, rateOut);
  if (firstWords) caller.say(firstWords, 'first words');
  await caller.start();
  return { caller, sessionId: admitted.session.id };
}

/** Caller speech synthesized by espeak-ng at `rateHz`. */
export function speech(text: string, rateHz = 16000): Int16Array {
  return speak(text, 'en-us', rateHz);
}

export async function sessionRow(h: Harness, id: string) {
  const [row] = await h.ctx.sql`select status, end_reason, connected_seconds from voice_sessions where id = ${id}`;
  return row as { status: string; end_reason: string | null; connected_seconds: number };
}

/** OpenAI STT and LLM on the fakes with TTS from the local espeak-ng (real speech, for echo tests). */
export async function espeakPipeline(h: Harness, projectId: string, baseUrl: string) {
  const openai = await verifiedAccount(h, projectId, 'openai', baseUrl);
  const local = await verifiedAccount(h, projectId, 'local', null);
  return {
    stt: { account_id: openai, model: 'gpt-4o-mini-transcribe' },
    llm: { account_id: openai, model: 'gpt-4.1-mini' },
    tts: { account_id: local, model: 'espeak-ng', voice: 'en-us' },
  };
}

/** Seeded white noise at `rms` (PCM16 units). */
export function noise(rateHz: number, ms: number, rms: number, seed = 1): Int16Array {
  let s = seed >>> 0;
  const out = new Int16Array(Math.round((rateHz * ms) / 1000));
  for (let i = 0; i < out.length; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    out[i] = Math.round(((s / 2 ** 32) * 2 - 1) * rms * Math.sqrt(3));
  }
  return out;
}

export const LONG_REPLY =
  'Let me tell you about our opening hours in detail. We open at nine in the morning on weekdays. ' +
  'On Saturdays we open a little later, at ten. On Sundays we are closed all day. Holidays follow the Sunday hours.';

export const isAssistant = (f: Record<string, unknown>) => f.type === 'transcript' && f.role === 'assistant';
export const isUser = (f: Record<string, unknown>) => f.type === 'transcript' && f.role === 'user';

/** A harness, the provider wire fakes and an agent media server, torn down with the test file. */
export async function startCallTests(t: { teardown: (fn: () => Promise<void>) => void }, script: ProviderScript = {}) {
  const h = await startHarness();
  const fake = await startProviderFakes(script);
  const media = await startAgentMedia(h);
  t.teardown(async () => {
    await media.drain(0);
    await fake.close();
    await h.close();
  });
  return { h, fake, media };
}

import { randomUUID, sign } from 'node:crypto';
import type { FakeTelnyx, FakeTelnyxAccount, FakeTelnyxCall } from './rest.js';

// Webhooks as Telnyx sends them (Call Control, API v2): a JSON POST
// {data: {record_type: "event", event_type, id, occurred_at, payload}, meta: {attempt, delivered_to}}
// with telnyx-timestamp (Unix seconds) and telnyx-signature-ed25519 = base64 Ed25519 signature of
// `${timestamp}|${raw body}` by the account's private key. Signed here with node:crypto
// directly, so our verifier is checked against an independent signer.

export interface WebhookAnswer {
  status: number;
  body: string;
}

export interface SendOptions {
  /** Replaces the signature header (a forged or corrupted one). */
  signature?: string;
  /** Seconds added to now for telnyx-timestamp (a stale or future webhook). */
  skewSeconds?: number;
  /** Signs with another account's key. */
  signer?: FakeTelnyxAccount;
  /** Changes the body after signing (tampering). */
  tamper?: (raw: string) => string;
  url?: string;
}

export function telnyxSign(account: FakeTelnyxAccount, timestamp: string, raw: string): string {
  return sign(null, Buffer.from(`${timestamp}|${raw}`), account.privateKey).toString('base64');
}

export async function postEvent(account: FakeTelnyxAccount, url: string, eventType: string, payload: Record<string, unknown>, opts: SendOptions = {}): Promise<WebhookAnswer> {
  const raw = JSON.stringify({
    data: { record_type: 'event', event_type: eventType, id: randomUUID(), occurred_at: new Date().toISOString(), payload },
    meta: { attempt: 1, delivered_to: url },
  });
  const timestamp = String(Math.floor(Date.now() / 1000) + (opts.skewSeconds ?? 0));
  const signature = opts.signature ?? telnyxSign(opts.signer ?? account, timestamp, raw);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'telnyx-signature-ed25519': signature, 'telnyx-timestamp': timestamp, 'user-agent': 'telnyx-webhooks' },
    body: opts.tamper ? opts.tamper(raw) : raw,
  });
  return { status: res.status, body: await res.text() };
}

function accountOf(fake: FakeTelnyx, call: FakeTelnyxCall): FakeTelnyxAccount {
  const account = fake.account(call.apiKey);
  if (!account) throw new Error('fake telnyx: no account for this call');
  return account;
}

const basePayload = (call: FakeTelnyxCall) => ({
  call_control_id: call.callControlId,
  call_leg_id: call.callLegId,
  call_session_id: call.callSessionId,
  client_state: call.clientState,
  connection_id: call.connectionId,
  from: call.from,
  to: call.to,
});

export type CallEvent =
  | 'call.initiated' | 'call.answered' | 'call.hangup' | 'call.speak.started' | 'call.speak.ended'
  // Answering-machine detection (dialed with answering_machine_detection); `extra` carries `result`.
  | 'call.machine.detection.ended' | 'call.machine.greeting.ended';

/** A call event to the call's webhook URL; `extra` adds or overrides payload fields. */
export async function sendCallEvent(fake: FakeTelnyx, call: FakeTelnyxCall, event: CallEvent, extra: Record<string, unknown> = {}, opts: SendOptions = {}): Promise<WebhookAnswer> {
  const payload: Record<string, unknown> = { ...basePayload(call) };
  if (event === 'call.initiated') Object.assign(payload, { direction: call.direction, state: call.direction === 'incoming' ? 'parked' : 'bridging', start_time: new Date().toISOString() });
  if (event === 'call.answered') Object.assign(payload, { start_time: new Date().toISOString() });
  if (event === 'call.hangup') {
    call.alive = false;
    Object.assign(payload, { hangup_cause: 'normal_clearing', hangup_source: 'callee', sip_hangup_cause: '200', start_time: new Date().toISOString(), end_time: new Date().toISOString() });
  }
  if (event === 'call.speak.ended') payload.status = 'completed';
  return postEvent(accountOf(fake, call), opts.url ?? call.webhookUrl, event, { ...payload, ...extra }, opts);
}

/** call.recording.saved for a call dialed with record=record-from-answer. */
export async function sendRecordingSaved(fake: FakeTelnyx, call: FakeTelnyxCall, opts: SendOptions & { recordingId?: string } = {}): Promise<WebhookAnswer & { recordingId: string; url: string }> {
  const recordingId = opts.recordingId ?? randomUUID();
  const url = `${fake.baseUrl}/recordings/${recordingId}.wav`;
  const payload = {
    ...basePayload(call),
    channels: 'single',
    format: 'wav',
    recording_id: recordingId,
    recording_started_at: new Date(Date.now() - 5000).toISOString(),
    recording_ended_at: new Date().toISOString(),
    recording_urls: { wav: url },
    public_recording_urls: {},
  };
  return { ...(await postEvent(accountOf(fake, call), opts.url ?? call.webhookUrl, 'call.recording.saved', payload, opts)), recordingId, url };
}

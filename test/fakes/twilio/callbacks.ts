import { createHmac, randomBytes } from 'node:crypto';
import type { FakeAccount, FakeTwilio, PlacedCall } from './rest.js';

// Requests Twilio makes to the customer's application, as the fake carrier would make them:
// form-encoded POSTs signed with X-Twilio-Signature (HMAC-SHA1 with the account's auth token
// over the URL followed by the sorted parameters, name + value). The signing is written out
// here rather than imported, so our validator is tested against an independent signer.

export interface CallbackAnswer {
  status: number;
  body: string;
  headers: Headers;
  /** The exact form that was sent. */
  sent: URLSearchParams;
  signature: string;
}

export function twilioSign(authToken: string, url: string, form: URLSearchParams): string {
  const names = [...new Set(form.keys())].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let data = url;
  for (const name of names) for (const value of form.getAll(name).sort()) data += name + value;
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

export async function postSigned(url: string, form: URLSearchParams, authToken: string, opts: { signature?: string } = {}): Promise<CallbackAnswer> {
  const signature = opts.signature ?? twilioSign(authToken, url, form);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature, 'user-agent': 'TwilioProxy/1.1' },
    body: form.toString(),
    redirect: 'manual',
  });
  return { status: res.status, body: await res.text(), headers: res.headers, sent: form, signature };
}

export type CallStatus = 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';

const sequence = new Map<string, number>();
const rfc2822 = (d: Date) => d.toUTCString().replace('GMT', '+0000');

function callOf(fake: FakeTwilio, callSid: string): { call: PlacedCall; account: FakeAccount } {
  const call = fake.calls.find((c) => c.sid === callSid);
  if (!call) throw new Error(`fake twilio: no call ${callSid}`);
  const account = fake.account(call.accountSid);
  if (!account) throw new Error(`fake twilio: no account ${call.accountSid}`);
  return { call, account };
}

/**
 * A call progress event to the StatusCallback given when the call was created (answered is
 * reported with CallStatus in-progress, as Twilio does). `extra` adds or overrides parameters.
 */
export async function sendStatusCallback(
  fake: FakeTwilio,
  callSid: string,
  status: CallStatus,
  opts: { durationSeconds?: number; extra?: Record<string, string>; signature?: string } = {},
): Promise<CallbackAnswer> {
  const { call, account } = callOf(fake, callSid);
  const url = call.form.StatusCallback?.[0];
  if (!url) throw new Error('fake twilio: this call has no StatusCallback');
  const seq = sequence.get(callSid) ?? 0;
  sequence.set(callSid, seq + 1);
  const form = new URLSearchParams({
    AccountSid: account.sid,
    ApiVersion: '2010-04-01',
    CallSid: callSid,
    CallStatus: status,
    Called: call.form.To[0],
    Caller: call.form.From[0],
    CallbackSource: 'call-progress-events',
    Direction: 'outbound-api',
    From: call.form.From[0],
    SequenceNumber: String(seq),
    Timestamp: rfc2822(new Date()),
    To: call.form.To[0],
  });
  if (status === 'completed') form.set('CallDuration', String(opts.durationSeconds ?? 0));
  for (const [k, v] of Object.entries(opts.extra ?? {})) form.set(k, v);
  return postSigned(url, form, account.token, { signature: opts.signature });
}

/** The recording status callback (RecordingStatusCallback) for a call created with Record=true. */
export async function sendRecordingCallback(
  fake: FakeTwilio,
  callSid: string,
  opts: { status?: 'in-progress' | 'completed' | 'absent'; durationSeconds?: number; recordingSid?: string; signature?: string } = {},
): Promise<CallbackAnswer & { recordingSid: string }> {
  const { call, account } = callOf(fake, callSid);
  const url = call.form.RecordingStatusCallback?.[0];
  if (!url) throw new Error('fake twilio: this call has no RecordingStatusCallback');
  const recordingSid = opts.recordingSid ?? `RE${randomBytes(16).toString('hex')}`;
  const form = new URLSearchParams({
    AccountSid: account.sid,
    CallSid: callSid,
    RecordingSid: recordingSid,
    RecordingUrl: `${fake.baseUrl}/2010-04-01/Accounts/${account.sid}/Recordings/${recordingSid}`,
    RecordingStatus: opts.status ?? 'completed',
    RecordingDuration: String(opts.durationSeconds ?? 0),
    RecordingChannels: '1',
    RecordingStartTime: rfc2822(new Date()),
    RecordingSource: 'OutboundAPI',
    RecordingTrack: 'both',
  });
  if (opts.status === 'absent') form.set('ErrorCode', '0');
  return { ...(await postSigned(url, form, account.token, { signature: opts.signature })), recordingSid };
}

/**
 * A phone call to one of the customer's numbers: Twilio asks the number's voice URL what to do
 * and the answer is TwiML. Returns the answer and the CallSid Twilio would use for the call.
 */
export async function sendIncomingCall(
  account: FakeAccount,
  url: string,
  call: { from: string; to: string; callSid?: string; signature?: string },
): Promise<CallbackAnswer & { callSid: string }> {
  const callSid = call.callSid ?? `CA${randomBytes(16).toString('hex')}`;
  const form = new URLSearchParams({
    AccountSid: account.sid,
    ApiVersion: '2010-04-01',
    CallSid: callSid,
    CallStatus: 'ringing',
    Called: call.to,
    Caller: call.from,
    Direction: 'inbound',
    From: call.from,
    To: call.to,
  });
  return { ...(await postSigned(url, form, account.token, { signature: call.signature })), callSid };
}

export type AnsweredBy = 'human' | 'machine_start' | 'machine_end_beep' | 'machine_end_silence' | 'machine_end_other' | 'fax' | 'unknown';

/**
 * Asynchronous answering-machine detection's verdict (AsyncAmdStatusCallback) for a call created
 * with MachineDetection and AsyncAmd=true, as Twilio posts it.
 */
export async function sendAmdCallback(
  fake: FakeTwilio,
  callSid: string,
  answeredBy: AnsweredBy,
  opts: { detectionMs?: number; signature?: string } = {},
): Promise<CallbackAnswer> {
  const { call, account } = callOf(fake, callSid);
  const url = call.form.AsyncAmdStatusCallback?.[0];
  if (!url || call.form.AsyncAmd?.[0] !== 'true') throw new Error('fake twilio: this call has no asynchronous AMD');
  const form = new URLSearchParams({
    AccountSid: account.sid,
    CallSid: callSid,
    AnsweredBy: answeredBy,
    MachineDetectionDuration: String(opts.detectionMs ?? 2500),
  });
  return postSigned(url, form, account.token, { signature: opts.signature });
}

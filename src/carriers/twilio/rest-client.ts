import { isIP } from 'node:net';
import { fetch } from 'undici';
import { isPrivateAddress } from '../../providers/url.js';
import { CarrierRestError, errorKindOf, type CarrierErrorKind } from '../rest-error.js';
import { networkDetail, parseJson, publicOnlyDispatcher, readCapped } from '../../shared/net/outbound-http.js';

// Twilio's 2010-04-01 REST API: fetch the Account (verification) and create a Call here; the
// IncomingPhoneNumbers calls are in incoming-numbers.ts. Requests are form-encoded with HTTP basic auth (Account SID : Auth Token);
// errors come back as JSON {code, message, more_info, status}. The auth token only ever
// travels in the Authorization header: never in an error, a detail or a log line.

export const TWILIO_API_BASE_URL = 'https://api.twilio.com';
export const ACCOUNT_SID_PATTERN = /^AC[0-9a-fA-F]{32}$/;
export const DEFAULT_TWILIO_TIMEOUT_MS = 8000;

export interface TwilioCredentials {
  accountSid: string;
  authToken: string;
}

export interface TwilioClientOptions {
  /** The carrier's base_url, or null/undefined for api.twilio.com. */
  baseUrl?: string | null;
  /** ALLOW_PRIVATE_URLS: lets base_url be http or a loopback/private address. */
  allowPrivate: boolean;
  timeoutMs?: number;
}

export type TwilioErrorKind = CarrierErrorKind;

export class TwilioRestError extends CarrierRestError {
  override readonly code = 'VC_ERR_TWILIO';
  constructor(
    kind: TwilioErrorKind,
    message: string,
    httpStatus: number | null = null,
    /** Twilio's own error code (20003, 21211, ...), when its error body had one. */
    readonly twilioCode: number | null = null,
    readonly moreInfo: string | null = null,
    maybeApplied = false,
  ) {
    super(kind, message, httpStatus, maybeApplied);
  }
}

export interface TwilioAccount {
  sid: string;
  friendly_name: string | null;
  /** `active`, `suspended` or `closed`. */
  status: string;
  type: string | null;
}

/** The fields of Twilio's Call resource that we use; the rest of the answer is kept in `raw`. */
export interface TwilioCall {
  sid: string;
  status: string;
  raw: Record<string, unknown>;
}

/** Call progress events Twilio can report to StatusCallback. */
export type StatusCallbackEvent = 'initiated' | 'ringing' | 'answered' | 'completed';
export type RecordingStatusCallbackEvent = 'in-progress' | 'completed' | 'absent';

export interface CreateCallParams {
  from: string;
  to: string;
  /** TwiML the call runs when answered (our <Connect><Stream>). */
  twiml: string;
  statusCallback?: string;
  statusCallbackEvent?: StatusCallbackEvent[];
  record?: boolean;
  recordingStatusCallback?: string;
  recordingStatusCallbackEvent?: RecordingStatusCallbackEvent[];
  /** Seconds to let the callee's phone ring (Twilio: 5-600, default 60). */
  timeoutSeconds?: number;
  /** Hard cap on the call length in seconds (Twilio's TimeLimit). */
  timeLimitSeconds?: number;
  /** Asynchronous answering-machine detection: the call connects at once, the verdict is POSTed to `statusCallback`. */
  machineDetection?: { mode: 'Enable' | 'DetectMessageEnd'; statusCallback: string };
  signal?: AbortSignal;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** base_url + path without doubling slashes; base_url may carry a path prefix. */
export function apiUrl(baseUrl: string | null | undefined, path: string): URL {
  return new URL((baseUrl ?? TWILIO_API_BASE_URL).replace(/\/+$/, '') + path);
}

/** The form body of a Call create, exactly as Twilio documents it (lists as repeated keys). */
export function callForm(p: Omit<CreateCallParams, 'signal'>): URLSearchParams {
  const form = new URLSearchParams();
  form.append('To', p.to);
  form.append('From', p.from);
  form.append('Twiml', p.twiml);
  if (p.statusCallback) {
    form.append('StatusCallback', p.statusCallback);
    form.append('StatusCallbackMethod', 'POST');
    for (const e of p.statusCallbackEvent ?? []) form.append('StatusCallbackEvent', e);
  }
  if (p.record) {
    form.append('Record', 'true');
    if (p.recordingStatusCallback) {
      form.append('RecordingStatusCallback', p.recordingStatusCallback);
      form.append('RecordingStatusCallbackMethod', 'POST');
      for (const e of p.recordingStatusCallbackEvent ?? []) form.append('RecordingStatusCallbackEvent', e);
    }
  }
  if (p.timeoutSeconds !== undefined) form.append('Timeout', String(p.timeoutSeconds));
  if (p.timeLimitSeconds !== undefined) form.append('TimeLimit', String(p.timeLimitSeconds));
  if (p.machineDetection) {
    form.append('MachineDetection', p.machineDetection.mode);
    form.append('AsyncAmd', 'true');
    form.append('AsyncAmdStatusCallback', p.machineDetection.statusCallback);
    form.append('AsyncAmdStatusCallbackMethod', 'POST');
  }
  return form;
}

const kindOf = errorKindOf;

export class TwilioRestClient {
  private readonly timeoutMs: number;

  constructor(
    private readonly creds: TwilioCredentials,
    private readonly opts: TwilioClientOptions,
  ) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TWILIO_TIMEOUT_MS;
  }

  /** GET /2010-04-01/Accounts/{sid}.json */
  async fetchAccount(signal?: AbortSignal): Promise<TwilioAccount> {
    const body = await this.request('GET', `/2010-04-01/Accounts/${encodeURIComponent(this.creds.accountSid)}.json`, undefined, signal);
    if (!isObject(body) || typeof body.sid !== 'string' || typeof body.status !== 'string') {
      throw new TwilioRestError('unexpected_response', `${this.host()} answered, but not with a Twilio account; check base_url`, 200);
    }
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return { sid: body.sid, status: body.status, friendly_name: str(body.friendly_name), type: str(body.type) };
  }

  /** POST /2010-04-01/Accounts/{sid}/Calls.json; Twilio answers 201 with the queued Call. */
  async createCall(params: CreateCallParams): Promise<TwilioCall> {
    const { signal, ...rest } = params;
    const body = await this.request('POST', `/2010-04-01/Accounts/${encodeURIComponent(this.creds.accountSid)}/Calls.json`, callForm(rest), signal);
    if (!isObject(body) || typeof body.sid !== 'string' || !/^CA[0-9a-fA-F]{32}$/.test(body.sid)) {
      // Twilio said 2xx, so the call may exist even though we cannot read its sid.
      throw new TwilioRestError('unexpected_response', `${this.host()} answered, but not with a Twilio call`, 200, null, null, true);
    }
    return { sid: body.sid, status: typeof body.status === 'string' ? body.status : 'queued', raw: body };
  }

  /**
   * POST /2010-04-01/Accounts/{sid}/Calls/{CallSid}.json: a live call runs new TwiML (transfer),
   * or is ended (`canceled` while queued or ringing, `completed` once answered).
   */
  async updateCall(callSid: string, update: { twiml: string } | { status: 'canceled' | 'completed' }, signal?: AbortSignal): Promise<TwilioCall> {
    const form = new URLSearchParams('twiml' in update ? { Twiml: update.twiml } : { Status: update.status });
    return this.callOf(await this.request('POST', this.callPath(callSid), form, signal));
  }

  /** GET /2010-04-01/Accounts/{sid}/Calls/{CallSid}.json: the call's current status. */
  async fetchCall(callSid: string, signal?: AbortSignal): Promise<TwilioCall> {
    return this.callOf(await this.request('GET', this.callPath(callSid), undefined, signal));
  }

  private callPath(callSid: string): string {
    return `/2010-04-01/Accounts/${encodeURIComponent(this.creds.accountSid)}/Calls/${encodeURIComponent(callSid)}.json`;
  }

  private callOf(body: unknown): TwilioCall {
    if (!isObject(body) || typeof body.sid !== 'string' || typeof body.status !== 'string') {
      throw new TwilioRestError('unexpected_response', `${this.host()} answered, but not with a Twilio call`, 200);
    }
    return { sid: body.sid, status: body.status, raw: body };
  }

  get accountSid(): string {
    return this.creds.accountSid;
  }

  host(): string {
    return apiUrl(this.opts.baseUrl, '/').host;
  }

  private scrub(text: string): string {
    const t = this.creds.authToken;
    return t.length >= 4 ? text.split(t).join('[redacted]') : text;
  }

  /** One request to the API (path below base_url, query included); the JSON answer or a TwilioRestError. */
  async request(method: 'GET' | 'POST', path: string, form: URLSearchParams | undefined, signal?: AbortSignal): Promise<unknown> {
    const url = apiUrl(this.opts.baseUrl, path);
    const host = url.host;
    const bare = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.opts.allowPrivate && (url.protocol !== 'https:' || (isIP(bare) && isPrivateAddress(bare)))) {
      throw new TwilioRestError('network', `${host} is not a public https address, which is not allowed`);
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const auth = Buffer.from(`${this.creds.accountSid}:${this.creds.authToken}`).toString('base64');
    let status: number;
    let text: string;
    let retryAfter: string | null = null;
    try {
      const res = await fetch(url, {
        method,
        headers: {
          authorization: `Basic ${auth}`,
          accept: 'application/json',
          'user-agent': 'voice-agent-service/1',
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form?.toString(),
        redirect: 'manual',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        ...(this.opts.allowPrivate ? {} : { dispatcher: publicOnlyDispatcher() }),
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      text = await readCapped(res.body as ReadableStream<Uint8Array> | null);
    } catch (err) {
      if (signal?.aborted) throw err;
      const { detail, timedOut } = networkDetail(err, host, this.timeoutMs);
      // A POST that went unanswered may still have been carried out.
      throw new TwilioRestError(timedOut ? 'timeout' : 'network', detail, null, null, null, method === 'POST');
    }
    const body = parseJson(text);
    if (status >= 200 && status < 300) return body;
    const kind = kindOf(status);
    const err = isObject(body) ? body : {};
    const code = typeof err.code === 'number' ? err.code : null;
    const moreInfo = typeof err.more_info === 'string' ? err.more_info.slice(0, 300) : null;
    const said = typeof err.message === 'string' ? `: ${this.scrub(err.message).slice(0, 300)}` : '';
    const message = kind === 'redirect'
      ? `${host} answered with a redirect (HTTP ${status}); check base_url`
      : `Twilio answered HTTP ${status}${code !== null ? ` (code ${code})` : ''}${said}`;
    const e = new TwilioRestError(kind, message, status, code, moreInfo, method === 'POST' && kind === 'server');
    if (retryAfter && /^\d{1,6}$/.test(retryAfter)) e.retryAfterSeconds = Number(retryAfter);
    throw e;
  }
}

export interface VerifyResult {
  status: 'verified' | 'invalid';
  detail: string | null;
}

/** One cheap, read-only call that tells whether the credentials work and the account is usable. */
export async function verifyTwilioAccount(creds: TwilioCredentials, opts: TwilioClientOptions): Promise<VerifyResult> {
  const client = new TwilioRestClient(creds, opts);
  try {
    const account = await client.fetchAccount();
    if (account.sid !== creds.accountSid) return { status: 'invalid', detail: 'Twilio answered for a different account; check base_url' };
    if (account.status !== 'active') {
      const state = /^[a-z_-]{1,32}$/.test(account.status) ? account.status : 'not active';
      return { status: 'invalid', detail: `the Twilio account is ${state}` };
    }
    return { status: 'verified', detail: null };
  } catch (err) {
    if (!(err instanceof TwilioRestError)) throw err;
    const code = err.twilioCode !== null ? `, code ${err.twilioCode}` : '';
    switch (err.kind) {
      case 'auth':
        return { status: 'invalid', detail: `Twilio rejected the Account SID or Auth Token (HTTP 401${code})` };
      case 'forbidden':
        return { status: 'invalid', detail: `Twilio refused access to the account (HTTP 403${code})` };
      case 'not_found':
        return { status: 'invalid', detail: `Twilio has no such account (HTTP 404${code}); check account_sid and base_url` };
      case 'network':
      case 'timeout':
      case 'redirect':
      case 'unexpected_response':
        return { status: 'invalid', detail: err.message };
      default:
        return { status: 'invalid', detail: `Twilio answered HTTP ${err.httpStatus ?? '?'}${code}; try again later` };
    }
  }
}

import { isIP } from 'node:net';
import { fetch } from 'undici';
import { isPrivateAddress } from '../../providers/url.js';
import { networkDetail, parseJson, publicOnlyDispatcher, readCapped } from '../../shared/net/outbound-http.js';
import { CarrierRestError, errorKindOf } from '../rest-error.js';

// Telnyx's v2 REST API (https://api.telnyx.com/v2): JSON both ways, `Authorization: Bearer <API
// key>`, answers wrapped in {data: …} and errors as {errors: [{code, title, detail}]}. The calls
// we make: list/get/create Call Control applications (verification; the application whose
// webhook is ours), phone numbers (find, point at the application, list for import), and the
// Call Control commands dial, answer, speak, transfer and hangup. The API key never leaves the header.

export const TELNYX_API_BASE_URL = 'https://api.telnyx.com';
export const DEFAULT_TELNYX_TIMEOUT_MS = 8000;

export interface TelnyxClientOptions {
  baseUrl?: string | null;
  allowPrivate: boolean;
  timeoutMs?: number;
}

export class TelnyxRestError extends CarrierRestError {
  override readonly code = 'VC_ERR_TELNYX';
  constructor(
    kind: CarrierRestError['kind'],
    message: string,
    httpStatus: number | null = null,
    /** Telnyx's own error code ("10009", "90018", ...), when its error body had one. */
    readonly telnyxCode: string | null = null,
    maybeApplied = false,
  ) {
    super(kind, message, httpStatus, maybeApplied);
  }
}

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface CallControlApplication {
  id: string;
  application_name: string;
  webhook_event_url: string;
}

export interface TelnyxPhoneNumber {
  id: string;
  phone_number: string;
  connection_id: string | null;
  status: string | null;
}

/** The body of POST /v2/calls (only the fields we use; Telnyx ignores none of them). */
export interface DialParams {
  connection_id: string;
  to: string;
  from: string;
  /** base64: handed back in every webhook of the call and in the stream's start frame. */
  client_state: string;
  stream_url: string;
  stream_track: 'inbound_track';
  stream_bidirectional_mode: 'rtp';
  stream_bidirectional_codec: 'PCMU';
  webhook_url: string;
  webhook_url_method: 'POST';
  timeout_secs: number;
  time_limit_secs: number;
  record?: 'record-from-answer';
  record_format?: 'wav' | 'mp3';
  record_channels?: 'single' | 'dual';
  /** Answering-machine detection: the verdict comes as a call.machine.detection.ended webhook. */
  answering_machine_detection?: 'detect';
}

export interface AnswerParams {
  client_state: string;
  stream_url?: string;
  stream_track?: 'inbound_track';
  stream_bidirectional_mode?: 'rtp';
  stream_bidirectional_codec?: 'PCMU';
  webhook_url?: string;
  webhook_url_method?: 'POST';
}

/** The body of the `transfer` command (the fields we use). */
export interface TransferParams {
  to: string;
  /** Caller ID shown to the destination; Telnyx's default is the original caller's. */
  from?: string;
  /** Seconds to ring the destination (Telnyx: default 30). */
  timeout_secs?: number;
  client_state?: string;
  webhook_url?: string;
  webhook_url_method?: 'POST';
}

export interface TelnyxCall {
  call_control_id: string;
  call_leg_id: string | null;
  call_session_id: string | null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);

export class TelnyxRestClient {
  private readonly timeoutMs: number;

  constructor(
    private readonly apiKey: string,
    private readonly opts: TelnyxClientOptions,
  ) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TELNYX_TIMEOUT_MS;
  }

  host(): string {
    return new URL((this.opts.baseUrl ?? TELNYX_API_BASE_URL).replace(/\/+$/, '') + '/').host;
  }

  /** GET /v2/call_control_applications?page[size]=1: a read-only call every working key may make. */
  async listApplications(pageSize = 1): Promise<CallControlApplication[]> {
    const body = await this.request('GET', `/v2/call_control_applications?page%5Bsize%5D=${pageSize}`);
    const data = isObj(body) && Array.isArray(body.data) ? body.data : null;
    if (!data) throw this.unexpected('a list of Call Control applications');
    return data.map((a) => this.application(a));
  }

  async getApplication(id: string): Promise<CallControlApplication | null> {
    try {
      return this.application(this.dataOf(await this.request('GET', `/v2/call_control_applications/${encodeURIComponent(id)}`)));
    } catch (err) {
      if (err instanceof TelnyxRestError && err.kind === 'not_found') return null;
      throw err;
    }
  }

  async createApplication(name: string, webhookUrl: string): Promise<CallControlApplication> {
    const body = await this.request('POST', '/v2/call_control_applications', {
      application_name: name,
      webhook_event_url: webhookUrl,
      webhook_api_version: '2',
      active: true,
    });
    return this.application(this.dataOf(body));
  }

  async updateApplication(id: string, webhookUrl: string): Promise<CallControlApplication> {
    return this.application(this.dataOf(await this.request('PATCH', `/v2/call_control_applications/${encodeURIComponent(id)}`, { webhook_event_url: webhookUrl })));
  }

  /** GET /v2/phone_numbers (filter[phone_number], page[number], page[size]); meta.total_pages tells if there is more. */
  async listPhoneNumbers(query: { phoneNumber?: string; page: number; size: number }): Promise<{ numbers: TelnyxPhoneNumber[]; totalPages: number }> {
    const q = new URLSearchParams();
    if (query.phoneNumber) q.set('filter[phone_number]', query.phoneNumber);
    q.set('page[number]', String(query.page));
    q.set('page[size]', String(query.size));
    const body = await this.request('GET', `/v2/phone_numbers?${q.toString()}`);
    if (!isObj(body) || !Array.isArray(body.data)) throw this.unexpected('a list of phone numbers');
    const meta = isObj(body.meta) ? body.meta : {};
    return { numbers: body.data.map((n) => this.phoneNumber(n)), totalPages: typeof meta.total_pages === 'number' ? meta.total_pages : 1 };
  }

  async getPhoneNumber(id: string): Promise<TelnyxPhoneNumber | null> {
    try {
      return this.phoneNumber(this.dataOf(await this.request('GET', `/v2/phone_numbers/${encodeURIComponent(id)}`)));
    } catch (err) {
      if (err instanceof TelnyxRestError && err.kind === 'not_found') return null;
      throw err;
    }
  }

  async setPhoneNumberConnection(id: string, connectionId: string | null): Promise<TelnyxPhoneNumber> {
    return this.phoneNumber(this.dataOf(await this.request('PATCH', `/v2/phone_numbers/${encodeURIComponent(id)}`, { connection_id: connectionId })));
  }

  /** POST /v2/calls. */
  async dial(params: DialParams): Promise<TelnyxCall> {
    const data = this.dataOf(await this.request('POST', '/v2/calls', params));
    const id = str(data.call_control_id);
    if (!id) throw new TelnyxRestError('unexpected_response', `${this.host()} answered, but not with a Telnyx call`, 200, null, true);
    return { call_control_id: id, call_leg_id: str(data.call_leg_id), call_session_id: str(data.call_session_id) };
  }

  async answer(callControlId: string, params: AnswerParams): Promise<void> {
    await this.command(callControlId, 'answer', params);
  }

  async speak(callControlId: string, params: { payload: string; voice: string; language: string; client_state?: string }): Promise<void> {
    await this.command(callControlId, 'speak', params);
  }

  async hangup(callControlId: string, params: { client_state?: string } = {}): Promise<void> {
    await this.command(callControlId, 'hangup', params);
  }

  /** Moves the call to `to` (Call Control `transfer`): Telnyx dials it and bridges the caller once answered. */
  async transfer(callControlId: string, params: TransferParams): Promise<void> {
    await this.command(callControlId, 'transfer', params);
  }

  /** POST /v2/calls/{call_control_id}/actions/{action}; Telnyx answers {data: {result: "ok"}}. */
  private async command(callControlId: string, action: string, params: object): Promise<void> {
    await this.request('POST', `/v2/calls/${encodeURIComponent(callControlId)}/actions/${action}`, params);
  }

  private unexpected(what: string): TelnyxRestError {
    return new TelnyxRestError('unexpected_response', `${this.host()} answered, but not with ${what}; check base_url`, 200);
  }

  private dataOf(body: unknown): Obj {
    if (!isObj(body) || !isObj(body.data)) throw this.unexpected('a Telnyx resource');
    return body.data;
  }

  private application(a: unknown): CallControlApplication {
    if (!isObj(a) || typeof a.id !== 'string') throw this.unexpected('a Call Control application');
    return { id: a.id, application_name: str(a.application_name) ?? '', webhook_event_url: str(a.webhook_event_url) ?? '' };
  }

  private phoneNumber(n: unknown): TelnyxPhoneNumber {
    if (!isObj(n) || typeof n.id !== 'string' || typeof n.phone_number !== 'string') throw this.unexpected('a phone number');
    return { id: n.id, phone_number: n.phone_number, connection_id: str(n.connection_id) || null, status: str(n.status) };
  }

  private scrub(text: string): string {
    return this.apiKey.length >= 4 ? text.split(this.apiKey).join('[redacted]') : text;
  }

  async request(method: 'GET' | 'POST' | 'PATCH', path: string, json?: object): Promise<unknown> {
    const url = new URL((this.opts.baseUrl ?? TELNYX_API_BASE_URL).replace(/\/+$/, '') + path);
    const host = url.host;
    const bare = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.opts.allowPrivate && (url.protocol !== 'https:' || (isIP(bare) && isPrivateAddress(bare)))) {
      throw new TelnyxRestError('network', `${host} is not a public https address, which is not allowed`);
    }
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          accept: 'application/json',
          'user-agent': 'voice-agent-service/1',
          ...(json ? { 'content-type': 'application/json' } : {}),
        },
        body: json ? JSON.stringify(json) : undefined,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
        ...(this.opts.allowPrivate ? {} : { dispatcher: publicOnlyDispatcher() }),
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      text = await readCapped(res.body as ReadableStream<Uint8Array> | null);
    } catch (err) {
      const { detail, timedOut } = networkDetail(err, host, this.timeoutMs);
      throw new TelnyxRestError(timedOut ? 'timeout' : 'network', detail, null, null, method !== 'GET');
    }
    const body = parseJson(text);
    if (status >= 200 && status < 300) return body;
    const kind = errorKindOf(status);
    const first = isObj(body) && Array.isArray(body.errors) && isObj(body.errors[0]) ? body.errors[0] : {};
    const code = typeof first.code === 'string' || typeof first.code === 'number' ? String(first.code) : null;
    const said = [first.title, first.detail].filter((x): x is string => typeof x === 'string').map((x) => this.scrub(x).slice(0, 300)).join(': ');
    const message = kind === 'redirect'
      ? `${host} answered with a redirect (HTTP ${status}); check base_url`
      : `Telnyx answered HTTP ${status}${code ? ` (code ${code})` : ''}${said ? `: ${said}` : ''}`;
    const e = new TelnyxRestError(kind, message, status, code, method !== 'GET' && kind === 'server');
    if (retryAfter && /^\d{1,6}$/.test(retryAfter)) e.retryAfterSeconds = Number(retryAfter);
    throw e;
  }
}

export interface VerifyResult {
  status: 'verified' | 'invalid';
  detail: string | null;
}

/** One read-only call: does the API key work? */
export async function verifyTelnyxKey(apiKey: string, opts: TelnyxClientOptions): Promise<VerifyResult> {
  try {
    await new TelnyxRestClient(apiKey, opts).listApplications(1);
    return { status: 'verified', detail: null };
  } catch (err) {
    if (!(err instanceof TelnyxRestError)) throw err;
    if (err.kind === 'auth') return { status: 'invalid', detail: 'Telnyx rejected the API key (HTTP 401)' };
    if (err.kind === 'forbidden') return { status: 'invalid', detail: 'Telnyx refused the API key access to Call Control (HTTP 403)' };
    return { status: 'invalid', detail: err.message };
  }
}

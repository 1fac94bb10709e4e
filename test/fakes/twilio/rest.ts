import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local fake of Twilio's 2010-04-01 REST API on 127.0.0.1, speaking its documented wire
// format: HTTP basic auth with Account SID : Auth Token, form-encoded POST bodies, JSON
// answers, and errors shaped {code, message, more_info, status}. It serves
//   GET  /2010-04-01/Accounts/{AccountSid}.json
//   POST /2010-04-01/Accounts/{AccountSid}/Calls.json
//   GET  /2010-04-01/Accounts/{AccountSid}/Calls/{CallSid}.json
//   POST /2010-04-01/Accounts/{AccountSid}/Calls/{CallSid}.json                  (Twiml, Url, Status: update a live call)
//   GET  /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json   (PhoneNumber filter; PageSize, Page, PageToken)
//   GET  /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers/{PN sid}.json
//   POST /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers/{PN sid}.json   (VoiceUrl, VoiceMethod, StatusCallback, …)
// and records every request (calls placed included) for the test to inspect.

export interface FakeAccount {
  sid: string;
  token: string;
  /** Twilio's account status: active, suspended or closed. */
  status: string;
  friendlyName: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Form fields, every value of a repeated key kept in order. */
  form: Record<string, string[]>;
}

/** An IncomingPhoneNumber of an account, with the settings its update changes. */
export interface FakeNumber {
  sid: string;
  accountSid: string;
  phoneNumber: string;
  friendlyName: string;
  voiceUrl: string;
  voiceMethod: string;
  voiceFallbackUrl: string;
  statusCallback: string;
  statusCallbackMethod: string;
  voiceApplicationSid: string;
  dateCreated: Date;
  dateUpdated: Date;
}

export interface PlacedCall {
  sid: string;
  accountSid: string;
  form: Record<string, string[]>;
  /** Twilio's CallStatus: queued, ringing, in-progress, completed, busy, failed, no-answer, canceled. */
  status: string;
  /** The form of every update (POST Calls/{sid}.json) that was carried out, in order. */
  updates: Record<string, string[]>[];
}

/**
 * A scripted answer: a canned status, a request left hanging, a dropped connection, or
 * `lostAnswer` — the request is carried out (a Calls.json POST creates the call) but the
 * connection drops before the answer: what a client sees as a network error.
 */
export type Override = { status: number; body?: unknown; headers?: Record<string, string> } | { hang: true } | { destroy: true } | { lostAnswer: true };

export interface FakeTwilio {
  baseUrl: string;
  requests: RecordedRequest[];
  calls: PlacedCall[];
  addAccount: (a?: Partial<FakeAccount>) => FakeAccount;
  account: (sid: string) => FakeAccount | undefined;
  setAccountStatus: (sid: string, status: string) => void;
  /** An IncomingPhoneNumber on the account (defaults: no voice URL, POST methods). */
  addNumber: (accountSid: string, phoneNumber: string, settings?: Partial<FakeNumber>) => FakeNumber;
  number: (phoneNumber: string, accountSid?: string) => FakeNumber | undefined;
  /** A call the test moves along (as the phone network would): answered, busy, hung up, ... */
  setCallStatus: (sid: string, status: string) => void;
  /** An inbound call Twilio holds for the account (the test posts its voice webhook itself). */
  addCall: (accountSid: string, from: string, to: string, status?: string) => PlacedCall;
  /** Called after each carried-out call update (as Twilio then stops a running <Connect><Stream>). */
  onCallUpdate: ((call: PlacedCall, form: Record<string, string[]>) => void) | null;
  /** Answers the next request(s) as scripted instead of normally (FIFO). */
  override: (...answers: Override[]) => void;
  close: () => Promise<void>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
export const randomAccountSid = () => `AC${hex(16)}`;
export const randomAuthToken = () => hex(16);
const rfc2822 = (d: Date) => d.toUTCString().replace('GMT', '+0000');

function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

/** A Call resource as Twilio's JSON shows it. */
function callJson(c: PlacedCall) {
  const first = (k: string) => c.form[k]?.[0] ?? null;
  const now = rfc2822(new Date());
  const ended = ['completed', 'busy', 'failed', 'no-answer', 'canceled'].includes(c.status);
  return {
    sid: c.sid,
    account_sid: c.accountSid,
    to: first('To'),
    to_formatted: first('To'),
    from: first('From'),
    from_formatted: first('From'),
    status: c.status,
    direction: first('Direction') ?? 'outbound-api',
    start_time: c.status === 'queued' || c.status === 'ringing' ? null : now,
    end_time: ended ? now : null,
    duration: ended ? '0' : null,
    price: null,
    price_unit: 'USD',
    date_created: now,
    date_updated: now,
    uri: `/2010-04-01/Accounts/${c.accountSid}/Calls/${c.sid}.json`,
  };
}

/** The resource as Twilio's JSON shows it. */
function numberJson(n: FakeNumber) {
  const uri = `/2010-04-01/Accounts/${n.accountSid}/IncomingPhoneNumbers/${n.sid}.json`;
  return {
    account_sid: n.accountSid,
    address_requirements: 'none',
    address_sid: null,
    api_version: '2010-04-01',
    beta: false,
    capabilities: { fax: false, mms: true, sms: true, voice: true },
    date_created: rfc2822(n.dateCreated),
    date_updated: rfc2822(n.dateUpdated),
    emergency_status: 'Active',
    emergency_address_sid: null,
    emergency_address_status: 'unregistered',
    friendly_name: n.friendlyName,
    identity_sid: null,
    origin: 'twilio',
    phone_number: n.phoneNumber,
    sid: n.sid,
    sms_application_sid: '',
    sms_fallback_method: 'POST',
    sms_fallback_url: '',
    sms_method: 'POST',
    sms_url: '',
    status_callback: n.statusCallback,
    status_callback_method: n.statusCallbackMethod,
    trunk_sid: null,
    uri,
    voice_application_sid: n.voiceApplicationSid,
    voice_caller_id_lookup: false,
    voice_fallback_method: 'POST',
    voice_fallback_url: n.voiceFallbackUrl,
    voice_method: n.voiceMethod,
    voice_url: n.voiceUrl,
    bundle_sid: null,
    voice_receive_mode: 'voice',
    status: 'in-use',
    subresource_uris: { assigned_add_ons: uri.replace(/\.json$/, '/AssignedAddOns.json') },
  };
}

/** The update's form fields and the resource fields they set. */
const NUMBER_FIELDS: [string, keyof FakeNumber][] = [
  ['VoiceUrl', 'voiceUrl'],
  ['VoiceMethod', 'voiceMethod'],
  ['VoiceFallbackUrl', 'voiceFallbackUrl'],
  ['StatusCallback', 'statusCallback'],
  ['StatusCallbackMethod', 'statusCallbackMethod'],
  ['VoiceApplicationSid', 'voiceApplicationSid'],
  ['FriendlyName', 'friendlyName'],
];

function parseForm(raw: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(raw)) (out[k] ??= []).push(v);
  return out;
}

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const accounts = new Map<string, FakeAccount>();
  const requests: RecordedRequest[] = [];
  const calls: PlacedCall[] = [];
  const numbers: FakeNumber[] = [];
  const overrides: Override[] = [];
  const hanging = new Set<() => void>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      const form = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') ? parseForm(rawBody) : {};
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, rawBody, form });
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        res.end(JSON.stringify(body));
      };

      const scripted = overrides.shift();
      const lostAnswer = !!scripted && 'lostAnswer' in scripted;
      if (scripted && !lostAnswer) {
        if ('hang' in scripted) {
          hanging.add(() => res.destroy());
          return;
        }
        if ('destroy' in scripted) return void req.socket.destroy();
        if ('status' in scripted) return send(scripted.status, scripted.body ?? {}, scripted.headers);
      }

      const m = /^\/2010-04-01\/Accounts\/([^/]+?)(\/Calls(?:\/([^/]+?))?|\/IncomingPhoneNumbers(?:\/([^/]+?))?)?\.json$/.exec(path);
      if (!m) return send(404, twilioError(404, 20404, `The requested resource ${path} was not found`));
      const [, sid, sub, callSidPart, numberSid] = m;
      const callsPart = sub === '/Calls';
      const numbersPart = sub?.startsWith('/IncomingPhoneNumbers');

      // HTTP basic auth: the Account SID and its Auth Token.
      const auth = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
      const [user, pass] = auth ? Buffer.from(auth[1], 'base64').toString('utf8').split(/:(.*)/s) : [];
      const account = user ? accounts.get(user) : undefined;
      if (!account || account.token !== pass) {
        return send(401, twilioError(401, 20003, 'Authenticate'), { 'www-authenticate': 'Basic realm="Twilio API"' });
      }
      if (sid !== account.sid) return send(404, twilioError(404, 20404, `The requested resource ${path} was not found`));

      if (callSidPart !== undefined) return oneCall(req.method ?? 'GET', account, callSidPart, form, send);
      if (numbersPart) return incomingNumbers(req.method ?? 'GET', account, numberSid, new URL(req.url ?? '/', 'http://x').searchParams, form, send);
      if (!callsPart && req.method === 'GET') {
        return send(200, {
          sid: account.sid,
          owner_account_sid: account.sid,
          friendly_name: account.friendlyName,
          status: account.status,
          type: 'Full',
          auth_token: account.token,
          date_created: rfc2822(new Date(Date.now() - 86_400_000)),
          date_updated: rfc2822(new Date()),
          uri: `/2010-04-01/Accounts/${account.sid}.json`,
        });
      }
      if (callsPart && req.method === 'POST') {
        if (account.status !== 'active') return send(401, twilioError(401, 20005, 'Account not active'));
        const first = (k: string) => form[k]?.[0];
        if (!first('To')) return send(400, twilioError(400, 21201, "No 'To' number is specified"));
        if (!first('From')) return send(400, twilioError(400, 21213, "No 'From' number is specified"));
        if (!first('Url') && !first('Twiml') && !first('ApplicationSid')) {
          return send(400, twilioError(400, 21205, 'Url parameter is required.'));
        }
        if (!/^\+[1-9][0-9]{6,14}$/.test(first('To')!)) {
          return send(400, twilioError(400, 21211, `The 'To' number ${first('To')} is not a valid phone number.`));
        }
        const callSid = `CA${hex(16)}`;
        calls.push({ sid: callSid, accountSid: account.sid, form, status: 'queued', updates: [] });
        if (lostAnswer) return void req.socket.destroy();
        const now = rfc2822(new Date());
        return send(201, {
          sid: callSid,
          account_sid: account.sid,
          to: first('To'),
          to_formatted: first('To'),
          from: first('From'),
          from_formatted: first('From'),
          status: 'queued',
          direction: 'outbound-api',
          start_time: null,
          end_time: null,
          duration: null,
          price: null,
          price_unit: 'USD',
          date_created: now,
          date_updated: now,
          uri: `/2010-04-01/Accounts/${account.sid}/Calls/${callSid}.json`,
        });
      }
      send(405, twilioError(405, 20004, 'Method not allowed'));
    });
  });

  /** One call: its status (GET), or an update of a live call (POST Twiml / Url / Status). */
  function oneCall(method: string, account: FakeAccount, callSid: string, form: Record<string, string[]>, send: (status: number, body: unknown) => void) {
    const c = calls.find((x) => x.sid === callSid && x.accountSid === account.sid);
    if (!c) return send(404, twilioError(404, 20404, `The requested resource /2010-04-01/Accounts/${account.sid}/Calls/${callSid}.json was not found`));
    if (method === 'GET') return send(200, callJson(c));
    if (method !== 'POST') return send(405, twilioError(405, 20004, 'Method not allowed'));
    const first = (k: string) => form[k]?.[0];
    const status = first('Status');
    const ended = ['completed', 'busy', 'failed', 'no-answer', 'canceled'].includes(c.status);
    if (status !== undefined) {
      if (status !== 'canceled' && status !== 'completed') return send(400, twilioError(400, 21218, 'Invalid Status'));
      // canceled only ends a call that has not been answered; completed ends it either way.
      if (!ended && (status === 'completed' || c.status === 'queued' || c.status === 'ringing')) c.status = status;
    } else {
      if (!first('Twiml') && !first('Url')) return send(400, twilioError(400, 21205, 'Url parameter is required.'));
      if (c.status !== 'in-progress') return send(400, twilioError(400, 21220, 'Call is not in-progress. Cannot redirect.'));
    }
    c.updates.push(form);
    const answer = callJson(c);
    fakeApi.onCallUpdate?.(c, form);
    return send(200, answer);
  }

  /** The IncomingPhoneNumbers list (newest last, paged by PageToken "PA" + the last sid), one number, or its update. */
  function incomingNumbers(
    method: string,
    account: FakeAccount,
    numberSid: string | undefined,
    query: URLSearchParams,
    form: Record<string, string[]>,
    send: (status: number, body: unknown) => void,
  ) {
    const base = `/2010-04-01/Accounts/${account.sid}/IncomingPhoneNumbers`;
    if (numberSid === undefined) {
      if (method !== 'GET') return send(405, twilioError(405, 20004, 'Method not allowed'));
      const pageSize = Math.min(1000, Math.max(1, Number(query.get('PageSize') ?? 50) || 50));
      const page = Math.max(0, Number(query.get('Page') ?? 0) || 0);
      const filter = query.get('PhoneNumber');
      const mine = numbers.filter((n) => n.accountSid === account.sid && (!filter || n.phoneNumber === filter));
      const token = query.get('PageToken');
      const from = token ? mine.findIndex((n) => `PA${n.sid}` === token) + 1 : 0;
      if (token && from === 0) return send(400, twilioError(400, 20001, 'Invalid PageToken'));
      const items = mine.slice(from, from + pageSize);
      const kept = new URLSearchParams(filter ? { PhoneNumber: filter } : {});
      const uriOf = (p: number, extra: Record<string, string> = {}) => `${base}.json?${new URLSearchParams({ ...Object.fromEntries(kept), PageSize: String(pageSize), Page: String(p), ...extra })}`;
      const more = from + pageSize < mine.length;
      return send(200, {
        end: from + Math.max(0, items.length - 1),
        first_page_uri: uriOf(0),
        incoming_phone_numbers: items.map(numberJson),
        next_page_uri: more ? uriOf(page + 1, { PageToken: `PA${items[items.length - 1].sid}` }) : null,
        page,
        page_size: pageSize,
        previous_page_uri: page > 0 ? uriOf(page - 1) : null,
        start: from,
        uri: `${base}.json?${query.toString()}`,
      });
    }
    const n = numbers.find((x) => x.sid === numberSid && x.accountSid === account.sid);
    if (!n) return send(404, twilioError(404, 20404, `The requested resource ${base}/${numberSid}.json was not found`));
    if (method === 'GET') return send(200, numberJson(n));
    if (method !== 'POST') return send(405, twilioError(405, 20004, 'Method not allowed'));
    for (const [field, key] of NUMBER_FIELDS) {
      const value = form[field]?.[0];
      if (value === undefined) continue;
      if ((field.endsWith('Url') || field === 'StatusCallback') && value !== '' && !/^https?:\/\/\S+$/.test(value)) {
        return send(400, twilioError(400, 21502, `${field} is not valid`));
      }
      if (field.endsWith('Method') && !['GET', 'POST'].includes(value.toUpperCase())) {
        return send(400, twilioError(400, 21503, `${field} must be GET or POST`));
      }
      (n[key] as string) = field.endsWith('Method') ? value.toUpperCase() : value;
    }
    n.dateUpdated = new Date();
    return send(200, numberJson(n));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fakeApi: FakeTwilio = {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    calls,
    onCallUpdate: null,
    setCallStatus: (sid, status) => {
      const c = calls.find((x) => x.sid === sid);
      if (!c) throw new Error(`fake twilio: no call ${sid}`);
      c.status = status;
    },
    addCall: (accountSid, from, to, status = 'in-progress') => {
      const c: PlacedCall = { sid: `CA${hex(16)}`, accountSid, form: { From: [from], To: [to], Direction: ['inbound'] }, status, updates: [] };
      calls.push(c);
      return c;
    },
    addAccount: (a = {}) => {
      const account: FakeAccount = { sid: a.sid ?? randomAccountSid(), token: a.token ?? randomAuthToken(), status: a.status ?? 'active', friendlyName: a.friendlyName ?? 'Fake account' };
      accounts.set(account.sid, account);
      return account;
    },
    account: (sid) => accounts.get(sid),
    setAccountStatus: (sid, status) => {
      const a = accounts.get(sid);
      if (a) a.status = status;
    },
    addNumber: (accountSid, phoneNumber, settings = {}) => {
      const n: FakeNumber = {
        sid: `PN${hex(16)}`,
        accountSid,
        phoneNumber,
        friendlyName: phoneNumber,
        voiceUrl: '',
        voiceMethod: 'POST',
        voiceFallbackUrl: '',
        statusCallback: '',
        statusCallbackMethod: 'POST',
        voiceApplicationSid: '',
        dateCreated: new Date(),
        dateUpdated: new Date(),
        ...settings,
      };
      numbers.push(n);
      return n;
    },
    number: (phoneNumber, accountSid) => numbers.find((n) => n.phoneNumber === phoneNumber && (!accountSid || n.accountSid === accountSid)),
    override: (...answers) => overrides.push(...answers),
    close: async () => {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fakeApi;
}

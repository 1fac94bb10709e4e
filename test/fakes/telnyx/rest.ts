import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local fake of Telnyx's v2 REST API on 127.0.0.1, speaking its documented wire format:
// `Authorization: Bearer <API key>`, JSON bodies, answers as {data: …} (lists with
// meta {page_number, page_size, total_pages, total_results}), errors as
// {errors: [{code, title, detail}]}. It serves
//   GET/POST       /v2/call_control_applications           (page[size], page[number])
//   GET/PATCH      /v2/call_control_applications/{id}
//   GET            /v2/phone_numbers                        (filter[phone_number], page[number], page[size])
//   GET/PATCH      /v2/phone_numbers/{id}                   ({connection_id})
//   POST           /v2/calls                                (dial)
//   POST           /v2/calls/{call_control_id}/actions/{answer|speak|transfer|hangup}
// Each account has an Ed25519 key pair: the public key is what the customer pastes, the private
// key signs the fake's webhooks. Every request is recorded.

export interface FakeTelnyxAccount {
  apiKey: string;
  userId: string;
  publicKey: string;
  privateKey: KeyObject;
}

export interface FakeApplication {
  id: string;
  apiKey: string;
  name: string;
  webhookUrl: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface FakeTelnyxNumber {
  id: string;
  apiKey: string;
  phoneNumber: string;
  connectionId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface FakeTelnyxCall {
  callControlId: string;
  callLegId: string;
  callSessionId: string;
  apiKey: string;
  connectionId: string;
  direction: 'incoming' | 'outgoing';
  from: string;
  to: string;
  /** The dial body (outgoing), or the answer body (incoming) once answered. */
  params: Record<string, unknown>;
  clientState: string | null;
  /** Where this call's webhooks go: the dial's webhook_url, else its application's. */
  webhookUrl: string;
  actions: { action: string; body: Record<string, unknown> }[];
  alive: boolean;
}

export interface TelnyxRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
  json: unknown;
}

export type TelnyxOverride = { status: number; body?: unknown } | { destroy: true };

export interface FakeTelnyx {
  baseUrl: string;
  requests: TelnyxRequest[];
  applications: FakeApplication[];
  numbers: FakeTelnyxNumber[];
  calls: FakeTelnyxCall[];
  addAccount: () => FakeTelnyxAccount;
  account: (apiKey: string) => FakeTelnyxAccount | undefined;
  /** A Call Control application the customer already has (another app's webhook). */
  addApplication: (apiKey: string, webhookUrl: string) => FakeApplication;
  addNumber: (apiKey: string, phoneNumber: string, connectionId?: string | null) => FakeTelnyxNumber;
  /** A call to one of the account's numbers, parked at Telnyx until answered (the caller sends call.initiated). */
  ringNumber: (apiKey: string, from: string, to: string) => FakeTelnyxCall;
  override: (...answers: TelnyxOverride[]) => void;
  close: () => Promise<void>;
}

const id19 = () => String(BigInt(`0x${randomBytes(8).toString('hex')}`) % 10n ** 19n).padStart(19, '1');
export const callControlId = () => `v3:${randomBytes(27).toString('base64url')}`;
const telnyxError = (code: string, title: string, detail: string) => ({ errors: [{ code, title, detail, meta: { url: `https://developers.telnyx.com/docs/overview/errors/${code}` } }] });
const E164 = /^\+[1-9][0-9]{6,14}$/;

/** The raw 32 bytes of an Ed25519 public key, base64 (as the Telnyx portal shows it). */
export function rawPublicKey(key: KeyObject): string {
  return (key.export({ format: 'der', type: 'spki' }) as Buffer).subarray(12).toString('base64');
}

function applicationJson(a: FakeApplication) {
  return {
    id: a.id,
    record_type: 'call_control_application',
    application_name: a.name,
    webhook_event_url: a.webhookUrl,
    webhook_event_failover_url: '',
    webhook_api_version: '2',
    webhook_timeout_secs: null,
    active: true,
    anchorsite_override: 'Latency',
    dtmf_type: 'RFC 2833',
    first_command_timeout: false,
    first_command_timeout_secs: 30,
    inbound: { channel_limit: null, shaken_stir_enabled: false, sip_subdomain: null, sip_subdomain_receive_settings: 'only_my_connections' },
    outbound: { channel_limit: null, outbound_voice_profile_id: null },
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

function numberJson(n: FakeTelnyxNumber, apps: FakeApplication[]) {
  return {
    id: n.id,
    record_type: 'phone_number',
    phone_number: n.phoneNumber,
    status: 'active',
    tags: [],
    external_pin: null,
    connection_id: n.connectionId ?? '',
    connection_name: apps.find((a) => a.id === n.connectionId)?.name ?? '',
    customer_reference: null,
    messaging_profile_id: null,
    messaging_profile_name: null,
    billing_group_id: null,
    emergency_enabled: false,
    emergency_address_id: null,
    call_forwarding_enabled: true,
    cnam_listing_enabled: false,
    caller_id_name_enabled: false,
    call_recording_enabled: false,
    t38_fax_gateway_enabled: false,
    phone_number_type: 'local',
    number_level_routing: 'disabled',
    purchased_at: n.createdAt.toISOString(),
    created_at: n.createdAt.toISOString(),
    updated_at: n.updatedAt.toISOString(),
  };
}

const meta = (page: number, size: number, total: number) => ({ page_number: page, page_size: size, total_pages: Math.max(1, Math.ceil(total / size)), total_results: total });

export async function startFakeTelnyx(): Promise<FakeTelnyx> {
  const accounts = new Map<string, FakeTelnyxAccount>();
  const requests: TelnyxRequest[] = [];
  const applications: FakeApplication[] = [];
  const numbers: FakeTelnyxNumber[] = [];
  const calls: FakeTelnyxCall[] = [];
  const overrides: TelnyxOverride[] = [];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://fake');
      let json: unknown = null;
      try {
        json = rawBody ? JSON.parse(rawBody) : null;
      } catch {
        json = undefined;
      }
      const method = req.method ?? 'GET';
      requests.push({ method, path: url.pathname, query: url.searchParams, headers: req.headers, rawBody, json });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': randomUUID() });
        res.end(JSON.stringify(body));
      };
      const scripted = overrides.shift();
      if (scripted) return 'destroy' in scripted ? void req.socket.destroy() : send(scripted.status, scripted.body ?? {});

      const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
      const account = auth ? accounts.get(auth[1]) : undefined;
      if (!account) return send(401, telnyxError('10009', 'Authentication failed', 'The API key is missing or invalid.'));
      if (json === undefined) return send(400, telnyxError('10015', 'Bad Request', 'The request body is not valid JSON.'));
      const body = (json ?? {}) as Record<string, unknown>;
      const notFound = () => send(404, telnyxError('10005', 'Resource not found', 'The requested resource or URL could not be found.'));
      const invalid = (detail: string, pointer: string) =>
        send(422, { errors: [{ code: '10015', title: 'Invalid value', detail, source: { pointer } }] });
      const page = Math.max(1, Number(url.searchParams.get('page[number]') ?? 1) || 1);
      const size = Math.min(250, Math.max(1, Number(url.searchParams.get('page[size]') ?? 20) || 20));
      const parts = url.pathname.split('/').filter(Boolean); // ['v2', resource, id?, 'actions'?, action?]
      if (parts[0] !== 'v2') return notFound();

      if (parts[1] === 'call_control_applications') {
        const mine = applications.filter((a) => a.apiKey === account.apiKey);
        if (parts.length === 2 && method === 'GET') {
          return send(200, { data: mine.slice((page - 1) * size, page * size).map(applicationJson), meta: meta(page, size, mine.length) });
        }
        if (parts.length === 2 && method === 'POST') {
          if (typeof body.application_name !== 'string' || !body.application_name) return invalid('application_name is required', '/application_name');
          if (typeof body.webhook_event_url !== 'string' || !/^https?:\/\//.test(body.webhook_event_url)) return invalid('webhook_event_url must be a URL', '/webhook_event_url');
          const now = new Date();
          const app: FakeApplication = { id: id19(), apiKey: account.apiKey, name: body.application_name, webhookUrl: body.webhook_event_url, createdAt: now, updatedAt: now };
          applications.push(app);
          return send(201, { data: applicationJson(app) });
        }
        const app = mine.find((a) => a.id === parts[2]);
        if (!app || parts.length !== 3) return notFound();
        if (method === 'GET') return send(200, { data: applicationJson(app) });
        if (method === 'PATCH') {
          if (typeof body.webhook_event_url === 'string') app.webhookUrl = body.webhook_event_url;
          if (typeof body.application_name === 'string') app.name = body.application_name;
          app.updatedAt = new Date();
          return send(200, { data: applicationJson(app) });
        }
      }

      if (parts[1] === 'phone_numbers') {
        const filter = url.searchParams.get('filter[phone_number]');
        const mine = numbers.filter((n) => n.apiKey === account.apiKey && (!filter || n.phoneNumber === filter));
        if (parts.length === 2 && method === 'GET') {
          return send(200, { data: mine.slice((page - 1) * size, page * size).map((n) => numberJson(n, applications)), meta: meta(page, size, mine.length) });
        }
        const n = mine.find((x) => x.id === parts[2]);
        if (!n || parts.length !== 3) return notFound();
        if (method === 'GET') return send(200, { data: numberJson(n, applications) });
        if (method === 'PATCH') {
          if ('connection_id' in body) {
            const cid = body.connection_id;
            if (cid !== null && cid !== '' && !applications.some((a) => a.id === cid && a.apiKey === account.apiKey)) return invalid('connection_id is not one of your connections', '/connection_id');
            n.connectionId = typeof cid === 'string' && cid ? cid : null;
          }
          n.updatedAt = new Date();
          return send(200, { data: numberJson(n, applications) });
        }
      }

      if (parts[1] === 'calls' && parts.length === 2 && method === 'POST') {
        const app = applications.find((a) => a.id === body.connection_id && a.apiKey === account.apiKey);
        if (!app) return invalid('connection_id is invalid', '/connection_id');
        if (typeof body.to !== 'string' || !E164.test(body.to)) return invalid('to must be a valid phone number', '/to');
        if (typeof body.from !== 'string' || !E164.test(body.from)) return invalid('from must be a valid phone number', '/from');
        const call: FakeTelnyxCall = {
          callControlId: callControlId(),
          callLegId: randomUUID(),
          callSessionId: randomUUID(),
          apiKey: account.apiKey,
          connectionId: app.id,
          direction: 'outgoing',
          from: body.from,
          to: body.to,
          params: body,
          clientState: typeof body.client_state === 'string' ? body.client_state : null,
          webhookUrl: typeof body.webhook_url === 'string' ? body.webhook_url : app.webhookUrl,
          actions: [],
          alive: true,
        };
        calls.push(call);
        return send(200, {
          data: { call_control_id: call.callControlId, call_leg_id: call.callLegId, call_session_id: call.callSessionId, is_alive: false, record_type: 'call' },
        });
      }
      if (parts[1] === 'calls' && parts[3] === 'actions' && parts.length === 5 && method === 'POST') {
        const call = calls.find((c) => c.callControlId === decodeURIComponent(parts[2]) && c.apiKey === account.apiKey);
        if (!call) return notFound();
        if (!call.alive) return send(422, telnyxError('90018', 'Call has already ended', 'This call is no longer active and can\'t receive commands.'));
        const action = parts[4];
        if (!['answer', 'speak', 'transfer', 'hangup'].includes(action)) return notFound();
        if (action === 'speak' && (typeof body.payload !== 'string' || typeof body.voice !== 'string')) return invalid('payload and voice are required', '/payload');
        if (action === 'transfer' && (typeof body.to !== 'string' || !E164.test(body.to))) return invalid('to must be a valid phone number', '/to');
        if (action === 'transfer' && body.from !== undefined && (typeof body.from !== 'string' || !E164.test(body.from))) return invalid('from must be a valid phone number', '/from');
        call.actions.push({ action, body });
        if (typeof body.client_state === 'string') call.clientState = body.client_state;
        if (action === 'answer') {
          call.params = body;
          if (typeof body.webhook_url === 'string') call.webhookUrl = body.webhook_url;
        }
        if (action === 'hangup') call.alive = false;
        return send(200, { data: { result: 'ok' } });
      }
      send(404, telnyxError('10005', 'Resource not found', 'The requested resource or URL could not be found.'));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    applications,
    numbers,
    calls,
    addAccount: () => {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const account: FakeTelnyxAccount = { apiKey: `KEY${randomBytes(16).toString('hex').toUpperCase()}_${randomBytes(12).toString('base64url')}`, userId: randomUUID(), publicKey: rawPublicKey(publicKey), privateKey };
      accounts.set(account.apiKey, account);
      return account;
    },
    account: (apiKey) => accounts.get(apiKey),
    addApplication: (apiKey, webhookUrl) => {
      const now = new Date();
      const app: FakeApplication = { id: id19(), apiKey, name: 'existing app', webhookUrl, createdAt: now, updatedAt: now };
      applications.push(app);
      return app;
    },
    addNumber: (apiKey, phoneNumber, connectionId = null) => {
      const now = new Date();
      const n: FakeTelnyxNumber = { id: id19(), apiKey, phoneNumber, connectionId, createdAt: now, updatedAt: now };
      numbers.push(n);
      return n;
    },
    ringNumber: (apiKey, from, to) => {
      const n = numbers.find((x) => x.apiKey === apiKey && x.phoneNumber === to);
      const app = applications.find((a) => a.id === n?.connectionId);
      if (!n || !app) throw new Error(`fake telnyx: ${to} is not on a Call Control application`);
      const call: FakeTelnyxCall = {
        callControlId: callControlId(),
        callLegId: randomUUID(),
        callSessionId: randomUUID(),
        apiKey,
        connectionId: app.id,
        direction: 'incoming',
        from,
        to,
        params: {},
        clientState: null,
        webhookUrl: app.webhookUrl,
        actions: [],
        alive: true,
      };
      calls.push(call);
      return call;
    },
    override: (...answers) => overrides.push(...answers),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

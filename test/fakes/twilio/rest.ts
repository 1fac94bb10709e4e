import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local fake of Twilio's 2010-04-01 REST API on 127.0.0.1, speaking its documented wire
// format: HTTP basic auth with Account SID : Auth Token, form-encoded POST bodies, JSON
// answers, and errors shaped {code, message, more_info, status}. It serves
//   GET  /2010-04-01/Accounts/{AccountSid}.json
//   POST /2010-04-01/Accounts/{AccountSid}/Calls.json
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

export interface PlacedCall {
  sid: string;
  accountSid: string;
  form: Record<string, string[]>;
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

function parseForm(raw: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(raw)) (out[k] ??= []).push(v);
  return out;
}

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const accounts = new Map<string, FakeAccount>();
  const requests: RecordedRequest[] = [];
  const calls: PlacedCall[] = [];
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

      const m = /^\/2010-04-01\/Accounts\/([^/]+?)(\/Calls)?\.json$/.exec(path);
      if (!m) return send(404, twilioError(404, 20404, `The requested resource ${path} was not found`));
      const [, sid, callsPart] = m;

      // HTTP basic auth: the Account SID and its Auth Token.
      const auth = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
      const [user, pass] = auth ? Buffer.from(auth[1], 'base64').toString('utf8').split(/:(.*)/s) : [];
      const account = user ? accounts.get(user) : undefined;
      if (!account || account.token !== pass) {
        return send(401, twilioError(401, 20003, 'Authenticate'), { 'www-authenticate': 'Basic realm="Twilio API"' });
      }
      if (sid !== account.sid) return send(404, twilioError(404, 20404, `The requested resource ${path} was not found`));

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
        calls.push({ sid: callSid, accountSid: account.sid, form });
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

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    calls,
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
    override: (...answers) => overrides.push(...answers),
    close: async () => {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

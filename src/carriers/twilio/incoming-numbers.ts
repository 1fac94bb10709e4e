import { BadCursor, type FoundNumber, type NumberConfigurator, type NumberPage, type NumberSettings, type NumberTarget } from '../number-config.js';
import { TwilioRestError, type TwilioRestClient } from './rest-client.js';

// Twilio's IncomingPhoneNumbers resource (2010-04-01):
//   GET  /Accounts/{Sid}/IncomingPhoneNumbers.json?PhoneNumber=…&PageSize=…   (paged: next_page_uri)
//   GET  /Accounts/{Sid}/IncomingPhoneNumbers/{PN sid}.json
//   POST /Accounts/{Sid}/IncomingPhoneNumbers/{PN sid}.json   form: VoiceUrl, VoiceMethod, StatusCallback, …
// A number with a VoiceApplicationSid (or a TrunkSid) ignores VoiceUrl, so binding clears the
// application and restoring puts it back.

const PN_SID = /^PN[0-9a-fA-F]{32}$/;
/** The settings we change, as Twilio names them in JSON (and, CamelCased, in the update form). */
const SETTINGS = {
  voice_url: 'VoiceUrl',
  voice_method: 'VoiceMethod',
  status_callback: 'StatusCallback',
  status_callback_method: 'StatusCallbackMethod',
  voice_application_sid: 'VoiceApplicationSid',
} as const;
/** Query parameters of Twilio's next_page_uri that a cursor may carry. */
const CURSOR_KEYS = new Set(['Page', 'PageSize', 'PageToken']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

function found(client: TwilioRestClient, raw: unknown): FoundNumber {
  if (!isObj(raw) || typeof raw.sid !== 'string' || !PN_SID.test(raw.sid) || typeof raw.phone_number !== 'string') {
    throw new TwilioRestError('unexpected_response', `${client.host()} answered, but not with a Twilio phone number`, 200);
  }
  const settings: NumberSettings = {};
  for (const key of Object.keys(SETTINGS)) settings[key] = text(raw[key]);
  const caps = isObj(raw.capabilities) ? raw.capabilities : {};
  return {
    number: {
      ref: raw.sid,
      e164: raw.phone_number,
      friendly_name: typeof raw.friendly_name === 'string' ? raw.friendly_name : null,
      voice_url: settings.voice_url || null,
      voice_capable: caps.voice !== false,
    },
    settings,
  };
}

const base = (client: TwilioRestClient) => `/2010-04-01/Accounts/${encodeURIComponent(client.accountSid)}/IncomingPhoneNumbers`;

function numberPath(client: TwilioRestClient, ref: string): string {
  if (!PN_SID.test(ref)) throw new TwilioRestError('invalid_request', 'not a Twilio phone number sid');
  return `${base(client)}/${ref}.json`;
}

function settingsForm(settings: NumberSettings): URLSearchParams {
  const form = new URLSearchParams();
  for (const [key, name] of Object.entries(SETTINGS)) if (key in settings) form.append(name, settings[key]);
  return form;
}

/** Our cursor: the query of Twilio's next_page_uri, base64url, limited to its paging keys. */
export function cursorOf(nextPageUri: string | null): string | null {
  if (!nextPageUri) return null;
  const query = new URLSearchParams(nextPageUri.split('?')[1] ?? '');
  const kept = new URLSearchParams([...query].filter(([k]) => CURSOR_KEYS.has(k)));
  return Buffer.from(kept.toString()).toString('base64url');
}

function queryOfCursor(cursor: string): URLSearchParams {
  const query = new URLSearchParams(Buffer.from(cursor, 'base64url').toString('utf8'));
  const keys = [...query.keys()];
  if (!keys.length || keys.some((k) => !CURSOR_KEYS.has(k)) || new Set(keys).size !== keys.length) throw new BadCursor('page_token is not one this API gave');
  return query;
}

export function twilioNumbers(client: TwilioRestClient): NumberConfigurator {
  const list = async (query: URLSearchParams): Promise<{ items: FoundNumber[]; next: string | null }> => {
    const body = await client.request('GET', `${base(client)}.json?${query.toString()}`, undefined);
    if (!isObj(body) || !Array.isArray(body.incoming_phone_numbers)) {
      throw new TwilioRestError('unexpected_response', `${client.host()} answered, but not with a list of Twilio phone numbers`, 200);
    }
    return { items: body.incoming_phone_numbers.map((n) => found(client, n)), next: typeof body.next_page_uri === 'string' ? body.next_page_uri : null };
  };

  return {
    async findNumber(e164) {
      const { items } = await list(new URLSearchParams({ PhoneNumber: e164, PageSize: '20' }));
      return items.find((f) => f.number.e164 === e164) ?? null;
    },
    async fetchNumber(ref) {
      try {
        return found(client, await client.request('GET', numberPath(client, ref), undefined));
      } catch (err) {
        if (err instanceof TwilioRestError && err.kind === 'not_found') return null;
        throw err;
      }
    },
    pointsAt: (settings, target) => settings.voice_url === target.voiceUrl && !settings.voice_application_sid,
    async apply(ref: string, target: NumberTarget, current: NumberSettings) {
      const settings: NumberSettings = {
        voice_url: target.voiceUrl,
        voice_method: 'POST',
        status_callback: target.statusCallbackUrl,
        status_callback_method: 'POST',
      };
      // Only cleared when set: an application would otherwise take the calls instead of VoiceUrl.
      if (current.voice_application_sid) settings.voice_application_sid = '';
      found(client, await client.request('POST', numberPath(client, ref), settingsForm(settings)));
    },
    async restore(ref, previous) {
      const settings = { ...previous };
      // An empty application sid is sent only to clear one; nothing to clear here.
      if (!settings.voice_application_sid) delete settings.voice_application_sid;
      found(client, await client.request('POST', numberPath(client, ref), settingsForm(settings)));
    },
    async listNumbers(pageSize: number, cursor: string | null): Promise<NumberPage> {
      const query = cursor ? queryOfCursor(cursor) : new URLSearchParams();
      query.set('PageSize', String(pageSize));
      const { items, next } = await list(query);
      return { numbers: items.map((f) => f.number), next: cursorOf(next) };
    },
  };
}

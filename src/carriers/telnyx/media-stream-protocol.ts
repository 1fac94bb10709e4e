// Telnyx Media Streaming over WebSocket (Call Control `stream_url`, bidirectional RTP mode).
// JSON text frames with an `event` discriminator:
//   From Telnyx: connected {version}; start {sequence_number, stream_id, start: {user_id,
//     call_control_id, call_session_id, from, to, client_state, custom_parameters, media_format:
//     {encoding, sample_rate, channels}}}; media {sequence_number, stream_id, media: {track,
//     chunk, timestamp, payload}}; dtmf {dtmf: {digit}}; mark {mark: {name}}; error {payload:
//     {code, title, detail}}; stop {stop: {user_id, call_control_id}}.
//   To Telnyx: media {media: {payload}} (base64 PCMU, no RTP header), mark {mark: {name}}, clear.
// Numbers such as sequence_number, chunk and timestamp come as decimal strings. Parsing never
// throws: it returns {ok: false, error}.

export const MAX_MESSAGE_BYTES = 256 * 1024;
export const PCMU = 'PCMU';
export const PCMU_SAMPLE_RATE_HZ = 8000;

export class TelnyxStreamError extends Error {
  readonly code = 'VC_ERR_TELNYX_STREAM';
  constructor(
    readonly reason: 'too_large' | 'not_json' | 'not_object' | 'unknown_event' | 'invalid_field',
    message: string,
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

export interface TelnyxStart {
  event: 'start';
  streamId: string;
  callControlId: string;
  /** The base64 client_state of the command that started the stream (ours: session and token). */
  clientState: string | null;
  customParameters: Record<string, string>;
  mediaFormat: { encoding: string; sampleRate: number; channels: number };
}
export type TelnyxInbound =
  | { event: 'connected'; version: string }
  | TelnyxStart
  | { event: 'media'; streamId: string | null; track: string; chunk: number | null; timestampMs: number | null; audio: Buffer }
  | { event: 'dtmf'; digit: string }
  | { event: 'mark'; name: string }
  | { event: 'error'; code: string | null; title: string | null; detail: string | null }
  | { event: 'stop'; callControlId: string | null };

export type TelnyxOutbound = { event: 'media'; audio: Buffer } | { event: 'mark'; name: string } | { event: 'clear' };

export type Parsed<T> = { ok: true; message: T } | { ok: false; error: TelnyxStreamError };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Invalid extends Error {
  constructor(readonly field: string, why: string) {
    super(why);
  }
}
function obj(o: Obj, key: string, path = key): Obj {
  const v = o[key];
  if (!isObj(v)) throw new Invalid(path, 'must be an object');
  return v;
}
function str(o: Obj, key: string, path: string, max = 1024): string {
  const v = o[key];
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw new Invalid(path, `must be a non-empty string of at most ${max} characters`);
  return v;
}
const optStr = (o: Obj, key: string) => (typeof o[key] === 'string' ? (o[key]) : null);
function uint(o: Obj, key: string, path: string, optional = false): number | null {
  const v = o[key];
  if (v === undefined && optional) return null;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  throw new Invalid(path, 'must be a non-negative integer');
}
function base64(text: unknown, path: string): Buffer {
  if (typeof text !== 'string') throw new Invalid(path, 'must be base64');
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = text.length % 4 === 0 && !text.includes('-') && !text.includes('_') ? Buffer.from(text, 'base64') : null;
  if (!bytes || bytes.length !== (text.length / 4) * 3 - padding) throw new Invalid(path, 'must be base64');
  return bytes;
}

function parseStart(m: Obj): TelnyxStart {
  const s = obj(m, 'start');
  const params = s.custom_parameters ?? {};
  if (!isObj(params)) throw new Invalid('start.custom_parameters', 'must be an object');
  const customParameters: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (typeof v === 'string') customParameters[k] = v;
  const f = obj(s, 'media_format', 'start.media_format');
  return {
    event: 'start',
    streamId: str(m, 'stream_id', 'stream_id', 128),
    callControlId: str(s, 'call_control_id', 'start.call_control_id', 256),
    clientState: optStr(s, 'client_state'),
    customParameters,
    mediaFormat: {
      encoding: str(f, 'encoding', 'start.media_format.encoding', 32),
      sampleRate: uint(f, 'sample_rate', 'start.media_format.sample_rate')!,
      channels: uint(f, 'channels', 'start.media_format.channels')!,
    },
  };
}

function parseInboundObject(m: Obj): TelnyxInbound {
  switch (m.event) {
    case 'connected':
      return { event: 'connected', version: optStr(m, 'version') ?? '' };
    case 'start':
      return parseStart(m);
    case 'media': {
      const media = obj(m, 'media');
      return {
        event: 'media',
        streamId: optStr(m, 'stream_id'),
        track: str(media, 'track', 'media.track', 32),
        chunk: uint(media, 'chunk', 'media.chunk', true),
        timestampMs: uint(media, 'timestamp', 'media.timestamp', true),
        audio: base64(media.payload, 'media.payload'),
      };
    }
    case 'dtmf': {
      const digit = str(obj(m, 'dtmf'), 'digit', 'dtmf.digit', 1);
      if (!/^[0-9*#A-D]$/.test(digit)) throw new Invalid('dtmf.digit', 'must be one of 0-9, *, #, A-D');
      return { event: 'dtmf', digit };
    }
    case 'mark':
      return { event: 'mark', name: str(obj(m, 'mark'), 'name', 'mark.name') };
    case 'error': {
      const p = isObj(m.payload) ? m.payload : {};
      const code = typeof p.code === 'number' || typeof p.code === 'string' ? String(p.code) : null;
      return { event: 'error', code, title: optStr(p, 'title'), detail: optStr(p, 'detail') };
    }
    case 'stop':
      return { event: 'stop', callControlId: isObj(m.stop) ? optStr(m.stop, 'call_control_id') : null };
    default:
      throw new TelnyxStreamError('unknown_event', 'unknown event');
  }
}

function parseEnvelope<T>(raw: string | Buffer, inner: (m: Obj) => T): Parsed<T> {
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (size > MAX_MESSAGE_BYTES) return { ok: false, error: new TelnyxStreamError('too_large', `message larger than ${MAX_MESSAGE_BYTES} bytes`) };
  let value: unknown;
  try {
    value = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return { ok: false, error: new TelnyxStreamError('not_json', 'message is not JSON') };
  }
  if (!isObj(value)) return { ok: false, error: new TelnyxStreamError('not_object', 'message is not a JSON object') };
  if (typeof value.event !== 'string') return { ok: false, error: new TelnyxStreamError('invalid_field', 'event must be a string', 'event') };
  try {
    return { ok: true, message: inner(value) };
  } catch (err) {
    if (err instanceof TelnyxStreamError) return { ok: false, error: err };
    if (err instanceof Invalid) return { ok: false, error: new TelnyxStreamError('invalid_field', `${err.field} ${err.message}`, err.field) };
    return { ok: false, error: new TelnyxStreamError('invalid_field', 'malformed message') };
  }
}

/** A frame Telnyx sent us. */
export function parseTelnyxInbound(raw: string | Buffer): Parsed<TelnyxInbound> {
  return parseEnvelope(raw, parseInboundObject);
}

/** A frame sent to Telnyx (what our side writes; the fake and tests read it). */
export function parseTelnyxOutbound(raw: string | Buffer): Parsed<TelnyxOutbound> {
  return parseEnvelope(raw, (m): TelnyxOutbound => {
    switch (m.event) {
      case 'media':
        return { event: 'media', audio: base64(obj(m, 'media').payload, 'media.payload') };
      case 'mark':
        return { event: 'mark', name: str(obj(m, 'mark'), 'name', 'mark.name') };
      case 'clear':
        return { event: 'clear' };
      default:
        throw new TelnyxStreamError('unknown_event', 'unknown event');
    }
  });
}

/** Caller audio as Telnyx takes it: base64 PCMU in a `media` frame. */
export const buildTelnyxMedia = (audio: Buffer | string) =>
  JSON.stringify({ event: 'media', media: { payload: typeof audio === 'string' ? audio : audio.toString('base64') } });
export const buildTelnyxMark = (name: string) => JSON.stringify({ event: 'mark', mark: { name } });
/** Drops what Telnyx queued for playback (barge-in); queued marks come back. */
export const buildTelnyxClear = () => JSON.stringify({ event: 'clear' });

// ---- client_state: ours carries the session id and its single-use media token ----

export interface StreamClaim {
  sessionId: string;
  token: string;
}

/** A call we answer only to say why we cannot take it (`sentence` names one of our refusals). */
export interface RefusalState {
  refusal: string;
}

export function encodeClientState(claim: StreamClaim | RefusalState): string {
  return Buffer.from(JSON.stringify('refusal' in claim ? { r: claim.refusal } : { s: claim.sessionId, t: claim.token })).toString('base64');
}

export function decodeClientState(state: string | null | undefined): StreamClaim | RefusalState | null {
  if (!state || state.length > 2048) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(state, 'base64').toString('utf8'));
    if (!isObj(v)) return null;
    if (typeof v.r === 'string') return { refusal: v.r.slice(0, 32) };
    return typeof v.s === 'string' && typeof v.t === 'string' ? { sessionId: v.s, token: v.t } : null;
  } catch {
    return null;
  }
}

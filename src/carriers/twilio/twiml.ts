// TwiML documents we answer Twilio with. Every text and attribute value is XML-escaped, so a
// caller-supplied value can never add or close an element.

const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>';

// Characters XML 1.0 does not allow at all (a document containing one is rejected by the parser).
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Escapes text or an attribute value (double-quoted) and drops characters XML cannot carry. */
export function xmlEscape(value: string): string {
  return value
    .replace(INVALID_XML_CHARS, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    // Attribute values are whitespace-normalised by XML parsers; keep line breaks and tabs as they are.
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
}

export class TwimlError extends Error {
  readonly code = 'VC_ERR_TWIML';
}

export interface ConnectStreamOptions {
  /** wss:// address of our media socket (ws:// is accepted for local development). Twilio does not pass a query string on: use parameters. */
  url: string;
  /** Custom parameters; Twilio hands them back in the `start` message's customParameters. */
  parameters?: Record<string, string>;
  /** Optional stream status callback (Twilio's `statusCallback` attribute). */
  statusCallback?: string;
  name?: string;
}

/** `<Response><Connect><Stream url=…><Parameter …/></Stream></Connect></Response>`: a bidirectional stream. */
export function connectStreamTwiml(o: ConnectStreamOptions): string {
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    throw new TwimlError('stream url must be an absolute wss:// URL');
  }
  if (url.protocol !== 'wss:' && url.protocol !== 'ws:') throw new TwimlError('stream url must use wss://');
  if (url.search) throw new TwimlError('Twilio drops query strings from stream URLs: pass values as parameters');
  const attrs = [`url="${xmlEscape(o.url)}"`];
  if (o.name) attrs.push(`name="${xmlEscape(o.name)}"`);
  if (o.statusCallback) attrs.push(`statusCallback="${xmlEscape(o.statusCallback)}"`, 'statusCallbackMethod="POST"');
  const params = Object.entries(o.parameters ?? {})
    .map(([name, value]) => `<Parameter name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`)
    .join('');
  const stream = params ? `<Stream ${attrs.join(' ')}>${params}</Stream>` : `<Stream ${attrs.join(' ')}/>`;
  return `${XML_DECL}<Response><Connect>${stream}</Connect></Response>`;
}

export interface SayOptions {
  /** A BCP 47 tag Twilio's <Say> accepts, e.g. en-US. */
  language?: string;
  voice?: string;
}

/** A spoken, polite refusal and a hang-up: inbound calls we cannot take must not just go dead. */
export function sayAndHangupTwiml(message: string, o: SayOptions = {}): string {
  const attrs = [o.voice ? ` voice="${xmlEscape(o.voice)}"` : '', o.language ? ` language="${xmlEscape(o.language)}"` : ''].join('');
  return `${XML_DECL}<Response><Say${attrs}>${xmlEscape(message)}</Say><Hangup/></Response>`;
}

/** Refusals we speak on inbound calls; short and free of anything internal. */
export const REFUSALS = {
  unavailable: 'Sorry, this number cannot take your call right now. Please try again later. Goodbye.',
  busy: 'Sorry, all our lines are busy right now. Please try again in a few minutes. Goodbye.',
} as const;

/** Cold transfer: `<Dial>` the person; the caller's call leaves our stream for them. */
export function dialNumberTwiml(e164: string, o: { callerId?: string; timeoutSeconds?: number } = {}): string {
  const attrs = [o.callerId ? ` callerId="${xmlEscape(o.callerId)}"` : '', o.timeoutSeconds ? ` timeout="${o.timeoutSeconds}"` : ''].join('');
  return `${XML_DECL}<Response><Dial${attrs}><Number>${xmlEscape(e164)}</Number></Dial></Response>`;
}

export interface ConferenceOptions extends SayOptions {
  /** Spoken to this participant before it joins (the warm transfer's summary). */
  say?: string;
  /** This participant starts the conference (the person); the caller waits with hold music until then. */
  startOnEnter: boolean;
}

/** Warm transfer: one participant of the conference `room`; either leaving ends it. */
export function conferenceTwiml(room: string, o: ConferenceOptions): string {
  const lang = [o.voice ? ` voice="${xmlEscape(o.voice)}"` : '', o.language ? ` language="${xmlEscape(o.language)}"` : ''].join('');
  const say = o.say ? `<Say${lang}>${xmlEscape(o.say)}</Say>` : '';
  const conf = `<Conference beep="false" startConferenceOnEnter="${o.startOnEnter}" endConferenceOnExit="true">${xmlEscape(room)}</Conference>`;
  return `${XML_DECL}<Response>${say}<Dial>${conf}</Dial></Response>`;
}

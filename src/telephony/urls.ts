import type { AppContext } from '../shared/app-context.js';

// The addresses Twilio is given. Callbacks are signed over the exact URL Twilio requests, so they
// are built from PUBLIC_BASE_URL exactly as the API role later rebuilds them from the request.

const base = (url: string) => url.replace(/\/+$/, '');

export const TWILIO_STREAM_PATH = '/v2/carriers/twilio/stream';
export const callbackPath = (carrierId: string, kind: 'status' | 'recording' | 'voice' | 'amd') => `/v2/carriers/twilio/${carrierId}/${kind}`;

/** Outbound callbacks carry our session id: they then find the session even before the CallSid is known. */
export function statusCallbackUrl(ctx: AppContext, carrierId: string, sessionId: string): string {
  return `${base(ctx.config.PUBLIC_BASE_URL)}${callbackPath(carrierId, 'status')}?session_id=${sessionId}`;
}

export function recordingCallbackUrl(ctx: AppContext, carrierId: string, sessionId: string): string {
  return `${base(ctx.config.PUBLIC_BASE_URL)}${callbackPath(carrierId, 'recording')}?session_id=${sessionId}`;
}

/** Asynchronous answering-machine detection's verdict on an outbound call (telephony/amd.ts). */
export function amdCallbackUrl(ctx: AppContext, carrierId: string, sessionId: string): string {
  return `${base(ctx.config.PUBLIC_BASE_URL)}${callbackPath(carrierId, 'amd')}?session_id=${sessionId}`;
}

/** What to paste into the Twilio console as a number's "A call comes in" webhook (POST). */
export function voiceWebhookUrl(ctx: AppContext, carrierId: string): string {
  return `${base(ctx.config.PUBLIC_BASE_URL)}${callbackPath(carrierId, 'voice')}`;
}

/** A bound number's StatusCallback: inbound calls are found by their CallSid. */
export function numberStatusCallbackUrl(ctx: AppContext, carrierId: string): string {
  return `${base(ctx.config.PUBLIC_BASE_URL)}${callbackPath(carrierId, 'status')}`;
}

/** The URL Twilio signed: PUBLIC_BASE_URL plus the path and query of the request as received. */
export function signedUrl(ctx: AppContext, requestUrl: string): string {
  return `${base(ctx.config.PUBLIC_BASE_URL)}${requestUrl}`;
}

/**
 * The media stream address for <Connect><Stream>; the session and token travel as <Parameter>s.
 * `mediaUrl`: the session's media node (src/sessions/media-nodes.ts).
 */
export function streamUrl(ctx: AppContext, mediaUrl: string = ctx.config.PUBLIC_MEDIA_URL): string {
  return `${base(mediaUrl)}${TWILIO_STREAM_PATH}`;
}

// Telnyx: one webhook per carrier (every Call Control event of its application and its calls)
// and one media socket path; the session and token travel in client_state.
export const TELNYX_STREAM_PATH = '/v2/carriers/telnyx/stream';
export const telnyxWebhookPath = (carrierId: string) => `/v2/carriers/telnyx/${carrierId}/webhook`;

export function telnyxWebhookUrl(ctx: AppContext, carrierId: string): string {
  return `${base(ctx.config.PUBLIC_BASE_URL)}${telnyxWebhookPath(carrierId)}`;
}

export function telnyxStreamUrl(ctx: AppContext, mediaUrl: string = ctx.config.PUBLIC_MEDIA_URL): string {
  return `${base(mediaUrl)}${TELNYX_STREAM_PATH}`;
}

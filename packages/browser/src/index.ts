import { CallRefusedError, connectPrepared, prepareAudio, releaseAudio } from './connect.js';
import type { Call } from './call.js';

// @voice-agent/browser: start a call to an agent from a web page with a publishable key
// (startCall), or connect a session created elsewhere by its ws_url (connectCall).
export { Call } from './call.js';
export { CallRefusedError, connectCall, type ConnectCallOptions } from './connect.js';
export type { CallEvents, Role } from './events.js';

export interface StartCallOptions {
  /** Publishable key (`pk_...`); the page's origin must be on its list. */
  publishableKey: string;
  agentId: string;
  variables?: Record<string, string>;
  /** Service address, e.g. `https://voice.example.com`. */
  baseUrl: string;
  /** Where capture-worklet.js and playback-worklet.js are served (default: next to this bundle). */
  workletBaseUrl?: string | URL;
  /** Another microphone constraint set (echo cancellation and noise suppression stay on). */
  audio?: MediaTrackConstraints;
}

interface BrowserSessionResponse {
  detail?: unknown;
  ws_url?: string;
  session?: { id: string; sample_rate_in?: number; sample_rate_out?: number };
}

/**
 * Asks for the microphone, creates a browser session (`POST /v2/browser/sessions`) and connects
 * its media socket. Call it from a user gesture so the AudioContext may start.
 */
export async function startCall(opts: StartCallOptions): Promise<Call> {
  // The microphone first: a refused permission creates no session.
  const setup = await prepareAudio(opts);
  try {
    const res = await fetch(`${opts.baseUrl.replace(/\/+$/, '')}/v2/browser/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-publishable-key': opts.publishableKey },
      body: JSON.stringify({ agent_id: opts.agentId, ...(opts.variables ? { variables: opts.variables } : {}) }),
    });
    const body = (await res.json().catch(() => ({}))) as BrowserSessionResponse;
    if (!res.ok || !body.ws_url || !body.session) throw new CallRefusedError(res.status, body.detail ?? res.statusText);
    return await connectPrepared(setup, {
      wsUrl: body.ws_url,
      sessionId: body.session.id,
      sampleRateIn: body.session.sample_rate_in,
      sampleRateOut: body.session.sample_rate_out,
    });
  } catch (err) {
    await releaseAudio(setup);
    throw err;
  }
}

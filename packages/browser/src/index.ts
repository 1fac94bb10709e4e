import { Call } from './call.js';

// @voice-agent/browser: start a call to an agent from a web page with a publishable key.
export { Call } from './call.js';
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

/** The service refused the call: `status` and `detail` are its answer. */
export class CallRefusedError extends Error {
  constructor(readonly status: number, readonly detail: unknown) {
    super(`call refused (${status}): ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
    this.name = 'CallRefusedError';
  }
}

async function openSocket(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onclose = (ev) => reject(new CallRefusedError(ev.code, ev.reason || 'media socket closed before it opened'));
  });
  return ws;
}

/**
 * Asks for the microphone, creates a browser session (`POST /v2/browser/sessions`) and connects
 * its media socket. Call it from a user gesture so the AudioContext may start.
 */
export async function startCall(opts: StartCallOptions): Promise<Call> {
  const context = new AudioContext({ latencyHint: 'interactive' });
  const base = opts.workletBaseUrl ?? new URL('./', import.meta.url);
  let stream: MediaStream | null = null;
  try {
    await context.audioWorklet.addModule(new URL('capture-worklet.js', base).href);
    await context.audioWorklet.addModule(new URL('playback-worklet.js', base).href);
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { ...opts.audio, echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
    });
    const res = await fetch(`${opts.baseUrl.replace(/\/+$/, '')}/v2/browser/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-publishable-key': opts.publishableKey },
      body: JSON.stringify({ agent_id: opts.agentId, ...(opts.variables ? { variables: opts.variables } : {}) }),
    });
    const body = (await res.json().catch(() => ({}))) as { detail?: unknown; ws_url?: string; session?: { id: string } };
    if (!res.ok || !body.ws_url || !body.session) throw new CallRefusedError(res.status, body.detail ?? res.statusText);
    const ws = await openSocket(body.ws_url);
    const capture = new AudioWorkletNode(context, 'voice-capture', { numberOfInputs: 1, numberOfOutputs: 0 });
    const playback = new AudioWorkletNode(context, 'voice-playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
    context.createMediaStreamSource(stream).connect(capture);
    playback.connect(context.destination);
    if (context.state === 'suspended') await context.resume();
    return new Call({ ws, context, stream, capture, playback, sessionId: body.session.id });
  } catch (err) {
    for (const track of stream?.getTracks() ?? []) track.stop();
    await context.close();
    throw err;
  }
}

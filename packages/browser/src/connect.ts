import { Call } from './call.js';

// The lower-level entry: connect a media socket whose session was created elsewhere (a server,
// the console door) and run the same microphone capture and jitter-buffered playback
// worklets as startCall. Call it from a user gesture so the AudioContext may start.

export interface ConnectCallOptions {
  /** The session's `ws_url`. */
  wsUrl: string;
  /** The session's id (kept on the Call). */
  sessionId: string;
  /** PCM16 rate the socket takes from the microphone (the session's `sample_rate_in`, default 16000). */
  sampleRateIn?: number;
  /** PCM16 rate the socket sends (the session's `sample_rate_out`, default 24000). */
  sampleRateOut?: number;
  /** Where capture-worklet.js and playback-worklet.js are served (default: next to this bundle). */
  workletBaseUrl?: string | URL;
  /** Exact worklet module URLs (hashed assets, for example); they win over `workletBaseUrl`. */
  workletUrls?: { capture: string | URL; playback: string | URL };
  /** Another microphone constraint set (echo cancellation and noise suppression stay on). */
  audio?: MediaTrackConstraints;
}

/** The service refused the call: `status` and `detail` are its answer (a close code for the socket). */
export class CallRefusedError extends Error {
  constructor(readonly status: number, readonly detail: unknown) {
    super(`call refused (${status}): ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
    this.name = 'CallRefusedError';
  }
}

/** The parts of a call that exist before its session does: worklets loaded, microphone open. */
export interface AudioSetup {
  context: AudioContext;
  stream: MediaStream;
}

type AudioOptions = Pick<ConnectCallOptions, 'workletBaseUrl' | 'workletUrls' | 'audio'>;

/** Loads both worklets and opens the microphone; closes what it opened when that fails. */
export async function prepareAudio(opts: AudioOptions): Promise<AudioSetup> {
  const context = new AudioContext({ latencyHint: 'interactive' });
  const base = opts.workletBaseUrl ?? new URL('./', import.meta.url);
  const urls = opts.workletUrls ?? { capture: new URL('capture-worklet.js', base), playback: new URL('playback-worklet.js', base) };
  try {
    await context.audioWorklet.addModule(String(urls.capture));
    await context.audioWorklet.addModule(String(urls.playback));
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { ...opts.audio, echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
    });
    return { context, stream };
  } catch (err) {
    await context.close();
    throw err;
  }
}

/** Undoes prepareAudio (the call never started). */
export async function releaseAudio(setup: AudioSetup): Promise<void> {
  for (const track of setup.stream.getTracks()) track.stop();
  if (setup.context.state !== 'closed') await setup.context.close();
}

function openSocket(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  return new Promise<WebSocket>((resolve, reject) => {
    ws.onopen = () => resolve(ws);
    ws.onclose = (ev) => reject(new CallRefusedError(ev.code, ev.reason || 'media socket closed before it opened'));
  });
}

/** Connects the socket and wires the prepared audio to it. */
export async function connectPrepared(setup: AudioSetup, opts: Omit<ConnectCallOptions, keyof AudioOptions>): Promise<Call> {
  const { context, stream } = setup;
  const ws = await openSocket(opts.wsUrl);
  const capture = new AudioWorkletNode(context, 'voice-capture', {
    numberOfInputs: 1,
    numberOfOutputs: 0,
    processorOptions: { outRate: opts.sampleRateIn ?? 16000 },
  });
  const playback = new AudioWorkletNode(context, 'voice-playback', {
    numberOfInputs: 0,
    numberOfOutputs: 1,
    outputChannelCount: [1],
    processorOptions: { inRate: opts.sampleRateOut ?? 24000 },
  });
  context.createMediaStreamSource(stream).connect(capture);
  playback.connect(context.destination);
  if (context.state === 'suspended') await context.resume();
  return new Call({ ws, context, stream, capture, playback, sessionId: opts.sessionId });
}

/**
 * Opens the microphone and connects a media socket the caller already has a `ws_url` for.
 * Resolves once the socket is open; rejects with CallRefusedError if the server closes it first.
 */
export async function connectCall(opts: ConnectCallOptions): Promise<Call> {
  const setup = await prepareAudio(opts);
  try {
    return await connectPrepared(setup, opts);
  } catch (err) {
    await releaseAudio(setup);
    throw err;
  }
}

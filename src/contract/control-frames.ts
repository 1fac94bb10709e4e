// Server → client control frames (spec 4.7, contract §9) and the media socket's message limits.

export const MAX_AUDIO_MESSAGE_BYTES = 64 * 1024;
/** Larger messages close the socket with 1009 (contract §9). */
export const MAX_SOCKET_MESSAGE_BYTES = 1024 * 1024;
/**
 * uWS drops a socket without a close frame (1006) when a message exceeds its
 * maxPayloadLength, so that limit sits above ours: messages up to it get a proper 1009,
 * anything larger is cut off at the frame header before it is buffered.
 */
export const UWS_MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * Every text frame the server sends on the media socket. Keys go on the wire in the order the
 * frame's object literal has them (JSON.stringify keeps insertion order).
 */
export type ControlFrame =
  | { type: 'transcript'; role: 'user' | 'assistant'; text: string }
  /** `heard`: the assistant text played before the interruption. */
  | { type: 'interrupted'; heard?: string }
  | { type: 'turn_complete' }
  | { type: 'error'; message: string }
  /** `reason`: the session's end_reason. */
  | { type: 'session_ended'; reason: string };

const fixedJson = new Map<ControlFrame, string>();

/** A frame that never changes: serialized once, here, and frozen so it stays what was serialized. */
function fixed(frame: ControlFrame): ControlFrame {
  fixedJson.set(Object.freeze(frame), JSON.stringify(frame));
  return frame;
}

/** The `error` frames answering bad caller input; the call goes on. */
export const InputErrorFrames = {
  oddLength: fixed({ type: 'error', message: 'binary audio must be PCM16LE: an even number of bytes' }),
  tooLarge: fixed({ type: 'error', message: `binary audio messages are at most ${MAX_AUDIO_MESSAGE_BYTES} bytes` }),
  badOpus: fixed({ type: 'error', message: 'binary message is not a valid Opus packet' }),
  badControl: fixed({ type: 'error', message: 'unknown control frame: send {"type":"stop"} to hang up' }),
};

const messageRateFrames = new Map<string, ControlFrame>();

/**
 * The one `error` frame a media socket gets when it goes over its message rate limit, right
 * before the close 1008 (MEDIA_MAX_MESSAGES_PER_SECOND, MEDIA_MESSAGE_BURST). Fixed once per
 * limit: the server builds it at start, never per message.
 */
export function messageRateErrorFrame(perSecond: number, burst: number): ControlFrame {
  const key = `${perSecond}/${burst}`;
  let frame = messageRateFrames.get(key);
  if (!frame) {
    frame = fixed({ type: 'error', message: `message rate limit exceeded: at most ${perSecond} messages per second (bursts of ${burst}); closing with 1008` });
    messageRateFrames.set(key, frame);
  }
  return frame;
}

/** The frame's text on the wire: the one place a frame is serialized. */
export function controlFrameJson(frame: ControlFrame): string {
  return fixedJson.get(frame) ?? JSON.stringify(frame);
}

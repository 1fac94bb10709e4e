// Server → client control frames (spec 4.7, contract §9). Fixed frames are built once.

export const MAX_AUDIO_MESSAGE_BYTES = 64 * 1024;
/** Larger messages close the socket with 1009 (contract §9). */
export const MAX_SOCKET_MESSAGE_BYTES = 1024 * 1024;
/**
 * uWS drops a socket without a close frame (1006) when a message exceeds its
 * maxPayloadLength, so that limit sits above ours: messages up to it get a proper 1009,
 * anything larger is cut off at the frame header before it is buffered.
 */
export const UWS_MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

export const Frames = {
  oddLength: JSON.stringify({ type: 'error', message: 'binary audio must be PCM16LE: an even number of bytes' }),
  tooLarge: JSON.stringify({ type: 'error', message: `binary audio messages are at most ${MAX_AUDIO_MESSAGE_BYTES} bytes` }),
  badOpus: JSON.stringify({ type: 'error', message: 'binary message is not a valid Opus packet' }),
  badControl: JSON.stringify({ type: 'error', message: 'unknown control frame: send {"type":"stop"} to hang up' }),
  interrupted: JSON.stringify({ type: 'interrupted' }),
  turnComplete: JSON.stringify({ type: 'turn_complete' }),
  sessionEnded: (reason: string) => JSON.stringify({ type: 'session_ended', reason }),
  transcript: (role: 'user' | 'assistant', text: string) => JSON.stringify({ type: 'transcript', role, text }),
};

// The call widget's interface. The console's own implementation (./socket-call) speaks the
// media socket protocol of spec §4.7 directly; the browser package's client can be put behind
// the same interface when it lands, without touching the Test call page.

export type CallState = 'connecting' | 'live' | 'ended';

export interface CallEvents {
  onState(state: CallState): void;
  onTranscript(role: 'user' | 'assistant', text: string): void;
  onInterrupted(heard?: string): void;
  onEnded(reason: string): void;
  onError(message: string): void;
}

export interface CallHandle {
  /** Hangs up: sends {type:"stop"} and closes the socket. */
  hangUp(): void;
}

export interface CallStart {
  wsUrl: string;
  sampleRateIn: number;
  sampleRateOut: number;
}

export type StartCall = (start: CallStart, events: CallEvents) => Promise<CallHandle>;

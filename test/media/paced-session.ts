// A VoiceSession on a manual clock with the real Pacer, for tests of pacing logic that need
// exact time (stalls, backpressure). Socket behaviour is tested over real sockets elsewhere.
import type { SessionRow } from '../../src/db/repos/voice-sessions.js';
import type { CallPipeline } from '../../src/media/call-pipeline.js';
import { Pacer } from '../../src/media/pacer.js';
import type { MediaTransport } from '../../src/media/transport.js';
import { VoiceSession, type SessionHooks } from '../../src/media/voice-session.js';

/** A transport that records what is sent and reports a settable socket backlog. */
export class RecordingTransport implements MediaTransport {
  readonly sent: { atMs: number; frame: Uint8Array }[] = [];
  backlogBytes = 0;
  constructor(private readonly now: () => number) {}
  sendAudio(frame: Uint8Array): void {
    this.sent.push({ atMs: this.now(), frame: frame.slice() });
  }
  sendControl(): void {}
  clearPlayback(): void {}
  bufferedBytes(): number {
    return this.backlogBytes;
  }
  cork(fn: () => void): void {
    fn();
  }
  close(): void {}
}

export function pacedSession<P extends CallPipeline>(t: { teardown: (fn: () => void) => void }, makePipeline: (now: () => number) => P) {
  let clock = 10_000;
  const now = () => clock;
  const pacer = new Pacer(now);
  t.teardown(() => pacer.stop());
  const pipeline = makePipeline(now);
  const transport = new RecordingTransport(now);
  const hooks: SessionHooks = {
    ended() {},
    kick: (s) => {
      const at = s.pace(now());
      if (at >= 0) pacer.wait(s, at);
    },
    waiting: (s, at) => pacer.wait(s, at),
    poke: (ms) => pacer.poke(ms),
    stalledMs: (from, to) => pacer.stalledMs(from, to),
  };
  const row = { id: 's1', project_id: 'p1', max_duration_seconds: 600 } as SessionRow;
  const session = new VoiceSession(row, clock, pipeline, hooks, { warn() {} }, now);
  pacer.add(session);
  session.attach(transport);
  /** Advance the clock in steps of `stepMs`, the pacer running at each (a live event loop). */
  const run = (untilMs: number, stepMs = 5) => {
    while (clock < untilMs) {
      clock = Math.min(untilMs, clock + stepMs);
      pacer.poke(clock);
    }
  };
  const jump = (ms: number) => {
    clock += ms; // nothing ran meanwhile: a stall
  };
  return { pipeline, session, pacer, hooks, transport, run, jump, now };
}

import type { EndSignal } from '../sessions/settlement.js';
import { callEnded, callStarted } from '../metrics/media.js';
import type { VoiceSession } from './voice-session.js';

// One structured line when a call starts and one when it ends, through the media role's
// logger (so its redaction applies), and the call counters of /metrics. Neither line carries
// a token, a number or a transcript: ids, counts and reasons only.

interface Log {
  info: (o: object, m: string) => void;
}

/** The transport opened: the call is live. */
export function logCallStart(log: Log, session: VoiceSession): void {
  callStarted(session.direction);
  log.info({ session_id: session.id, project_id: session.projectId, direction: session.direction }, 'call started');
}

/** The call ended (`nowMs` monotonic, as its start): its line and its totals. */
export function logCallEnd(log: Log, session: VoiceSession, signal: EndSignal, nowMs: number): void {
  const durationMs = Math.max(0, Math.round(nowMs - session.startedAt));
  callEnded(session, signal.endReason, durationMs / 1000);
  log.info(
    {
      session_id: session.id,
      project_id: session.projectId,
      direction: session.direction,
      duration_ms: durationMs,
      outcome: signal.outcome,
      end_reason: signal.endReason,
      frames_in: session.framesIn,
      frames_out: session.framesOut,
      frames_dropped: session.droppedFrames,
      barge_ins: session.bargeIns,
    },
    'call ended',
  );
}

import type { AppContext } from '../shared/app-context.js';
import type { CarrierInfo } from '../db/repos/carriers.js';
import { getAnsweredBy, MACHINE_DETECTION_CHANNEL, recordAnsweredBy } from '../db/repos/machine-detection.js';
import type { Sql } from '../shared/sql.js';

// Answering-machine detection on outbound calls (issue 20, contract §11 `voicemail`). An agent
// with a `voicemail` setting has its calls placed with Twilio's asynchronous AMD: the call is
// connected to the conversation at once (a person is greeted without delay) and Twilio POSTs its
// verdict (AnsweredBy) to the signed `…/amd` callback. The API role stores it on the session and
// NOTIFYs; the media node running the call (conversation/voicemail.ts) acts on it.

/**
 * `Enable`: the verdict comes as soon as Twilio knows (machine_start), so the conversation stops
 * early and our own beep detector finds the moment to speak; DetectMessageEnd would leave the agent
 * talking to the machine until its greeting ends.
 */
export const TWILIO_AMD_MODE = 'Enable' as const;
/** Telnyx's counterpart: `detect` reports human / machine as soon as it knows (call.machine.detection.ended). */
export const TELNYX_AMD_MODE = 'detect' as const;

/** Telnyx's machine-detection results in Twilio's AnsweredBy words (one vocabulary is stored). */
export function telnyxAnsweredBy(eventType: string, result: unknown): string | null {
  if (eventType === 'call.machine.detection.ended') return ({ human: 'human', machine: 'machine_start', fax_detected: 'fax', not_sure: 'unknown' } as Record<string, string>)[String(result)] ?? null;
  if (eventType === 'call.machine.greeting.ended') return result === 'beep_detected' ? 'machine_end_beep' : 'machine_end_other';
  return null;
}

/** What a verdict means for the call. */
export type MachineVerdict =
  /** A person (or Twilio could not tell): the conversation goes on. */
  | 'human'
  /** A machine, its greeting still playing. */
  | 'machine'
  /** A machine whose greeting is over (the beep, silence or anything else ended it). */
  | 'machine_greeting_ended'
  /** A fax: nobody to leave a message with. */
  | 'fax';

/** Twilio's AnsweredBy words (and Telnyx's, mapped to them) → verdict; null for anything else. */
export function verdictOf(answeredBy: string): MachineVerdict | null {
  switch (answeredBy) {
    case 'human':
    case 'unknown':
      return 'human';
    case 'machine_start':
      return 'machine';
    case 'machine_end_beep':
    case 'machine_end_silence':
    case 'machine_end_other':
      return 'machine_greeting_ended';
    case 'fax':
      return 'fax';
    default:
      return null;
  }
}

const CALL_SID = /^CA[0-9a-fA-F]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const sessionOf = (query: Record<string, unknown>) => (typeof query.session_id === 'string' && UUID.test(query.session_id) ? query.session_id : null);

export type CallbackResult = 'applied' | 'ignored';

/** Twilio's AsyncAmdStatusCallback (signature already checked by the route). */
export async function handleAmdCallback(ctx: AppContext, carrier: CarrierInfo, form: URLSearchParams, query: Record<string, unknown>): Promise<CallbackResult> {
  const sessionId = sessionOf(query);
  const answeredBy = form.get('AnsweredBy') ?? '';
  const sid = form.get('CallSid');
  if (!sessionId || verdictOf(answeredBy) === null) return 'ignored';
  return applyMachineVerdict(ctx, carrier.id, sessionId, sid && CALL_SID.test(sid) ? sid : null, answeredBy);
}

/** Stores the first verdict of an unsettled session and tells the media node (one transaction). */
export async function applyMachineVerdict(ctx: AppContext, carrierId: string, sessionId: string, callId: string | null, answeredBy: string): Promise<CallbackResult> {
  const stored = await ctx.sql.begin((tx) => recordAnsweredBy(tx, carrierId, sessionId, callId, answeredBy));
  if (stored) ctx.log.info({ session_id: sessionId, answered_by: answeredBy }, 'answering-machine verdict');
  return stored ? 'applied' : 'ignored';
}

// ---------------------------------------------------------------- the media node's side

type Listener = (answeredBy: string) => void;
interface Watch {
  listeners: Map<string, Set<Listener>>;
  ready: Promise<unknown>;
}
/** One LISTEN connection per Postgres client (process), shared by its calls. */
const watches = new WeakMap<Sql, Watch>();

function watchFor(ctx: AppContext): Watch {
  let w = watches.get(ctx.sql);
  if (w) return w;
  const listeners = new Map<string, Set<Listener>>();
  const tell = (sessionId: string, answeredBy: string) => {
    for (const fn of [...(listeners.get(sessionId) ?? [])]) fn(answeredBy);
  };
  let listening = false;
  const onNotify = (payload: string) => {
    let note: { session_id?: unknown; answered_by?: unknown };
    try {
      note = JSON.parse(payload) as typeof note;
    } catch {
      return;
    }
    if (typeof note.session_id === 'string' && typeof note.answered_by === 'string') tell(note.session_id, note.answered_by);
  };
  // Called again after the LISTEN connection was lost and made anew: verdicts stored meanwhile are read.
  const onListen = () => {
    if (!listening) return void (listening = true);
    for (const id of listeners.keys()) void getAnsweredBy(ctx.sql, id).then((v) => v && tell(id, v), () => {});
  };
  const ready = ctx.sql
    .listen(MACHINE_DETECTION_CHANNEL, onNotify, onListen)
    .catch((err: unknown) => ctx.log.warn({ err }, 'cannot listen for answering-machine verdicts'));
  w = { listeners, ready };
  watches.set(ctx.sql, w);
  return w;
}

/**
 * Calls `onVerdict` with the session's AnsweredBy once it is known: at once when it was stored
 * before (the verdict beat the media stream), else when the API role announces it. Returns the
 * function that stops watching.
 */
export function watchMachineDetection(ctx: AppContext, sessionId: string, onVerdict: Listener): () => void {
  const w = watchFor(ctx);
  let done = false;
  const once: Listener = (answeredBy) => {
    if (done) return;
    done = true;
    stop();
    onVerdict(answeredBy);
  };
  const set = w.listeners.get(sessionId) ?? new Set<Listener>();
  set.add(once);
  w.listeners.set(sessionId, set);
  function stop(): void {
    set.delete(once);
    if (set.size === 0 && w.listeners.get(sessionId) === set) w.listeners.delete(sessionId);
  }
  // Read after LISTEN is in place, so a verdict is never missed between the two.
  void w.ready
    .then(() => getAnsweredBy(ctx.sql, sessionId))
    .then((stored) => stored && once(stored))
    .catch((err: unknown) => ctx.log.warn({ err, session_id: sessionId }, 'cannot read the answering-machine verdict'));
  return () => {
    done = true;
    stop();
  };
}

import type { AppContext } from '../shared/app-context.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { TransferDestination } from '../contract/agents.js';
import type { TranscriptEntry } from '../contract/events.js';
import type { LlmTool } from '../providers/types.js';
import { transferCall, type TransferOptions, type TransferResult } from '../telephony/transfer.js';

// The built-in `transfer_call {destination, mode, summary?}` tool (contract §11): offered on phone
// calls whose agent lists transfer_destinations. `cold` moves the caller straight to the person;
// `warm` calls the person first, who hears a summary (the one the model writes, else the caller's
// last words from the transcript) and then is joined with the caller. The call ends `transferred`
// once the caller is handed over; otherwise the model is told why and the conversation goes on.

export const TRANSFER_CALL = 'transfer_call';
/** How long a transfer lets the person's phone ring when the agent sets no transfer_timeout_seconds. */
export const DEFAULT_TRANSFER_TIMEOUT_SECONDS = 30;
const SUMMARY_MAX_CHARS = 600;
/** The agent's last words reach the caller before the carrier moves them (at most this long a wait). */
const SPOKEN_WAIT_MAX_MS = 15_000;

export function transferTool(destinations: TransferDestination[]): LlmTool {
  const list = destinations.map((d) => `- ${d.name}${d.description ? `: ${d.description}` : ''}`).join('\n');
  return {
    name: TRANSFER_CALL,
    description:
      'Transfer the phone call to a person. Tell the caller first, in the same answer. ' +
      '"cold" connects the caller directly; "warm" calls the person first, tells them your summary, then joins the caller ' +
      `(if nobody answers you will be told, and the call goes on). People you can transfer to:\n${list}`,
    parameters: {
      type: 'object',
      properties: {
        destination: { type: 'string', enum: destinations.map((d) => d.name), description: 'Who to transfer to (a name from the list)' },
        mode: { type: 'string', enum: ['cold', 'warm'], description: 'cold: connect directly; warm: brief the person first' },
        summary: { type: 'string', description: 'warm only: one or two sentences for the person about the caller and what they need' },
      },
      required: ['destination', 'mode'],
    },
  };
}

/** What the tool needs from the call it runs in (the call shell provides it). */
export interface TransferHost {
  /** Aborted when the answer that called the tool is cut off or the call stops. */
  signal: AbortSignal;
  /** Resolves once the agent's queued words have played (or the call stopped). */
  spoken(maxMs: number): Promise<void>;
  /** The caller is handed over: end the call (`completed`, `transferred`). */
  handedOver(): void;
  transcript(): readonly TranscriptEntry[];
}

/** Runs a transfer_call; returns the tool message for the model. */
export type TransferRunner = (args: Record<string, unknown> | null, host: TransferHost) => Promise<string>;

export interface TransferSettings {
  destinations: TransferDestination[];
  timeoutSeconds: number | null;
  language: string;
}

/** The summary a warm transfer speaks: the model's, else the caller's last words. */
export function transferSummary(written: unknown, transcript: readonly TranscriptEntry[], destination: string): string {
  const own = typeof written === 'string' ? written.trim() : '';
  if (own) return `Hello ${destination}, this is the virtual assistant with a caller for you. ${own}`.slice(0, SUMMARY_MAX_CHARS);
  const said = transcript.filter((e) => e.role === 'user').slice(-3).map((e) => e.text.trim()).filter(Boolean).join(' ');
  const gist = said ? ` The caller said: ${said}` : '';
  return `Hello ${destination}, this is the virtual assistant with a caller for you.${gist}`.slice(0, SUMMARY_MAX_CHARS);
}

const message = (o: object) => JSON.stringify(o);

function toolMessage(result: TransferResult, name: string): string {
  switch (result.kind) {
    case 'handed_over':
      return message({ result: `the caller is being transferred to ${name}; the call ends here` });
    case 'not_answered':
      return message({ result: `${name} did not answer (${result.detail}). Tell the caller and carry on helping them.` });
    case 'failed':
      return message({ error: `the transfer to ${name} failed: ${result.detail}. Tell the caller and carry on helping them.` });
  }
}

/** The transfer_call runner of a phone session: checks the model's arguments, then the carrier moves the caller. */
export function carrierTransferRunner(ctx: AppContext, row: SessionRow, settings: TransferSettings, opts: TransferOptions = {}): TransferRunner {
  return async (args, host) => {
    const name = typeof args?.destination === 'string' ? args.destination : '';
    const destination = settings.destinations.find((d) => d.name === name) ?? settings.destinations.find((d) => d.name.toLowerCase() === name.trim().toLowerCase());
    if (!destination) return message({ error: `destination must be one of: ${settings.destinations.map((d) => d.name).join(', ')}` });
    const mode = args?.mode;
    if (mode !== 'cold' && mode !== 'warm') return message({ error: 'mode must be "cold" or "warm"' });
    // The caller hears the agent's "I'm transferring you" before anything moves.
    await host.spoken(SPOKEN_WAIT_MAX_MS);
    if (host.signal.aborted) return message({ error: 'the transfer was called off' });
    const result = await transferCall(
      ctx,
      {
        sessionId: row.id,
        transfer: { destination: destination.name, e164: destination.e164, mode },
        summary: transferSummary(args?.summary, host.transcript(), destination.name),
        language: settings.language,
        ringSeconds: settings.timeoutSeconds ?? DEFAULT_TRANSFER_TIMEOUT_SECONDS,
        signal: host.signal,
      },
      opts,
    );
    if (result.kind === 'handed_over') host.handedOver();
    return toolMessage(result, destination.name);
  };
}

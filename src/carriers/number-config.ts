// What every carrier offers for the numbers of an account: find a number, point its inbound
// calls at us, put back what it had before, and list the account's numbers for import. The
// settings saved before a change are the carrier's own (Twilio: voice URL, methods, status
// callback, application; Telnyx: the connection) and are handed back unchanged to restore.

/** A number as the carrier holds it. */
export interface CarrierNumber {
  /** The carrier's id of the number (Twilio PN sid, Telnyx phone number id). */
  ref: string;
  e164: string;
  friendly_name: string | null;
  /** Where its inbound calls go now (Twilio voice_url; Telnyx: the connection's id). */
  voice_url: string | null;
  voice_capable: boolean;
}

/** The carrier's settings of a number that we change and later restore. */
export type NumberSettings = Record<string, string>;

export interface FoundNumber {
  number: CarrierNumber;
  settings: NumberSettings;
}

/** Where a bound number's calls must go. */
export interface NumberTarget {
  /** Our voice webhook (Twilio VoiceUrl). */
  voiceUrl: string;
  /** Our call status callback (Twilio StatusCallback). */
  statusCallbackUrl: string;
  /** Telnyx: the Call Control application whose webhook is ours. */
  connectionId?: string;
}

export interface NumberPage {
  numbers: CarrierNumber[];
  /** Opaque cursor of the next page, or null on the last. */
  next: string | null;
}

export interface NumberConfigurator {
  findNumber(e164: string): Promise<FoundNumber | null>;
  fetchNumber(ref: string): Promise<FoundNumber | null>;
  /** True when these settings already send the number's calls to `target`. */
  pointsAt(settings: NumberSettings, target: NumberTarget): boolean;
  apply(ref: string, target: NumberTarget, current: NumberSettings): Promise<void>;
  restore(ref: string, previous: NumberSettings): Promise<void>;
  listNumbers(pageSize: number, cursor: string | null): Promise<NumberPage>;
}

/** A page cursor from the caller that cannot be ours (422 at `loc ["query","page_token"]`). */
export class BadCursor extends Error {}

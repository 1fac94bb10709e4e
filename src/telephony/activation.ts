import type { AppContext } from '../shared/app-context.js';
import type { CarrierCallRow } from '../db/repos/carrier-calls.js';
import { findLiveCarrier } from '../db/repos/carriers.js';
import { activate, CloseCode, refuse, type Activation, type ActivationChecks } from '../sessions/lifecycle.js';

// A carrier media stream's `start` turns into a running call here: the browser socket's rules
// for the single-use token (sessions/lifecycle `activate`), with these checks of its own. The
// session may already be `active` (a status callback reported ringing or answered before the
// stream came), and only phone sessions of the carrier account that opened the stream may be
// joined. media_connected_at is set now, at stream start, so connected_seconds is measured
// from the media stream.

export interface StreamStart {
  sessionId: string;
  token: string;
  /** Which carrier's stream socket the `start` came on (default twilio). */
  kind?: 'twilio' | 'telnyx';
  /** From the `start` message: the Twilio account (Telnyx: none) and the call the stream belongs to. */
  accountSid: string;
  callSid: string;
}

function carrierStreamChecks(start: StreamStart): ActivationChecks {
  return {
    refusal: async (tx, session) => {
      const row = session as CarrierCallRow;
      if (row.direction !== 'outbound' && row.direction !== 'inbound') return refuse(CloseCode.notConnectable, 'not a phone session');
      if (row.status === 'failed' && row.end_reason === 'not_connected') return refuse(CloseCode.expired, 'stream came too late');
      const connectable = row.settled_at === null && row.media_connected_at === null && (row.status === 'created' || row.status === 'active');
      if (!connectable) return refuse(CloseCode.notConnectable, 'session is not connectable');
      // The stream must come from the carrier account the session's call belongs to.
      const carrier = row.carrier_id ? await findLiveCarrier(tx, row.carrier_id) : null;
      const kind = start.kind ?? 'twilio';
      const sameAccount = kind === 'telnyx' ? carrier?.kind === 'telnyx' : carrier?.kind === 'twilio' && carrier.account_sid === start.accountSid;
      if (!carrier || !sameAccount) return refuse(CloseCode.notConnectable, 'stream from another carrier account');
      if (row.carrier_call_sid && row.carrier_call_sid !== start.callSid) return refuse(CloseCode.notConnectable, 'stream of another call');
      return null;
    },
    lateReason: 'stream came too late',
    callSid: start.callSid,
  };
}

export async function activateCarrierStream(ctx: AppContext, start: StreamStart, nodeId: string): Promise<Activation> {
  return activate(ctx, start.sessionId, start.token, nodeId, carrierStreamChecks(start));
}

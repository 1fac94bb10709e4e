// How long each step of a phone call may take before someone else gives up on it.

/** Twilio's Timeout: seconds the callee's phone rings before Twilio reports no-answer. */
export const RING_TIMEOUT_SECONDS = 60;
/** After the ring timeout, how long an answered call's media stream may take to arrive. */
export const STREAM_CONNECT_MARGIN_SECONDS = 60;
/** How long an admitted outbound call may wait in the dial queue. */
export const DIAL_QUEUE_WINDOW_SECONDS = 60;
/**
 * The outbound token's window at admission: queue, ring and stream. The dial job restarts it
 * (ring + stream) when it places the call, so a call that waited in the queue still gets its full ring.
 */
export const OUTBOUND_TOKEN_TTL_SECONDS = DIAL_QUEUE_WINDOW_SECONDS + RING_TIMEOUT_SECONDS + STREAM_CONNECT_MARGIN_SECONDS;
export const DIALED_TOKEN_TTL_SECONDS = RING_TIMEOUT_SECONDS + STREAM_CONNECT_MARGIN_SECONDS;
/** Inbound: Twilio opens the stream right after it reads our TwiML. */
export const INBOUND_TOKEN_TTL_SECONDS = 60;
/**
 * A dial whose outcome is unknown (timeout, dropped connection, 5xx) fails as carrier_error after
 * this long, unless a status callback showed by then that Twilio did create the call.
 */
export const UNKNOWN_DIAL_GRACE_SECONDS = 30;
/** Outbound sessions still waiting for their dial job this long after admission are queued again. */
export const REQUEUE_AFTER_SECONDS = 10;
/** Twilio's TimeLimit: our max_duration plus this, so the carrier hangs up even if we could not. */
export const TIME_LIMIT_MARGIN_SECONDS = 60;
/** A ringing/answered session with no media yet: its lease outlives the token by this (the sweeper settles it first). */
export const RINGING_LEASE_MARGIN_MS = 30_000;

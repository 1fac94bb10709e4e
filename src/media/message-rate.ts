// The per-socket message rate limit of the media socket (both transports): a token bucket of
// `burst` messages refilled at `perSecond`, counted on every incoming message, binary or text,
// whatever it carries. A socket over it gets one `error` frame where its protocol has one, then
// close 1008. Defaults (MEDIA_MAX_MESSAGES_PER_SECOND 200, MEDIA_MESSAGE_BURST 400) and why:
// docs/media.md.
//
// The hot path is one increment and one compare. The clock is read once per `batch` messages
// (8 with the defaults): on Node 20 `performance.now()` returns a freshly allocated heap number,
// so a read per message would add an allocation per message. At each read the batch's messages
// are taken from the bucket as if they had all come at the read, before the cap at `burst` is
// applied. That is never stricter than a bucket settled message by message (it never cuts a
// socket such a bucket lets through), and cuts a flood at most 2 × batch − 1 messages after it
// (≤ 4 % of the burst; with the defaults 407 messages pass at once on a fresh socket instead of
// 400). test/media/message-rate.test.ts checks both against an exact bucket.

import { performance } from 'node:perf_hooks';
import { messageRateErrorFrame, type ControlFrame } from '../contract/control-frames.js';

/** The close code and reason of a socket over its message rate (RFC 6455: policy violation). */
export const MESSAGE_RATE_CLOSE_CODE = 1008;
export const MESSAGE_RATE_CLOSE_REASON = 'message rate limit exceeded';
/** Messages per clock read, at most; a batch is at most 2 % of the burst (1 below 100: exact). */
const MAX_BATCH = 16;

/** One limit for every socket of a server (built once from the configuration). */
export class MessageRatePolicy {
  /** Tokens refilled per millisecond. */
  readonly perMs: number;
  /** Messages counted between two clock reads. */
  readonly batch: number;
  /** The `error` frame sent before the close (browser sockets; Twilio has no such message). */
  readonly errorFrame: ControlFrame;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    /** Monotonic milliseconds (the pacer's clock); tests inject their own. */
    readonly now: () => number = () => performance.now(),
  ) {
    if (!(perSecond > 0) || !(burst >= 1)) throw new Error('message rate limit: perSecond > 0 and burst >= 1');
    this.perMs = perSecond / 1000;
    this.batch = Math.max(1, Math.min(MAX_BATCH, Math.floor(burst / 50)));
    this.errorFrame = messageRateErrorFrame(perSecond, burst);
  }

  /** A fresh, full bucket for one socket. */
  bucket(): MessageRateBucket {
    return new MessageRateBucket(this);
  }
}

/** One socket's bucket. */
export class MessageRateBucket {
  /** Messages since the last clock read, not yet taken from `tokens`. */
  private count = 0;
  /** Tokens at `atMs` (a full bucket at 0: the first read refills it to the brim). */
  private tokens: number;
  private atMs = 0;
  private readonly batch: number;

  constructor(readonly policy: MessageRatePolicy) {
    this.tokens = policy.burst;
    this.batch = policy.batch;
  }

  /** Counts one message; false once the socket is over its limit (it is then closed). */
  take(): boolean {
    if (++this.count < this.batch) return true;
    return this.settle();
  }

  private settle(): boolean {
    const { policy } = this;
    const now = policy.now();
    // The batch's last message is this one, arriving now: the cap applies before it is taken
    // (so a batch of 1 is an exact bucket), the others are taken before the cap.
    let tokens = this.tokens + (now - this.atMs) * policy.perMs - (this.count - 1);
    if (tokens > policy.burst) tokens = policy.burst;
    this.atMs = now;
    this.count = 0;
    // Half a message of slack: the refill is a product of floats. A refused message is not taken.
    if (tokens <= 0.5) {
      this.tokens = tokens;
      return false;
    }
    this.tokens = tokens - 1;
    return true;
  }
}

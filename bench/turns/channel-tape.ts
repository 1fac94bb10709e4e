// A call's barge-in input on tape: everything the engine handed its MediaChannel (the agent audio
// pushed as the reference, the caller's messages), in order and timed (epoch ms), with the
// channel's options. Played back through a fresh channel it raises the same events on the same
// frames as the live call did (the channel is deterministic), so a detector change can be scored
// on live calls in seconds instead of a 16-minute run, and without the simulated line's model of
// the server (sim-line.ts), which differed from it (docs/benchmarks-turns.md, round 12).
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { ChannelEvents, MediaChannel, type MediaChannelOptions } from '../../src/audio/native.js';
import { readHops, type TracedHop } from '../../src/audio/hop-trace.js';

const REF = 0;
const MIC = 1;
const RECORD_HEAD = 13; // kind u8, epoch ms f64, byte length u32

/** Records `channel`'s input to `path` from now on (wraps its process and pushReference). */
export function recordTape(channel: MediaChannel, path: string, now: () => number): WriteStream {
  const out = createWriteStream(path);
  const head = Buffer.from(JSON.stringify({ options: channel.options }));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length);
  out.write(Buffer.concat([len, head]));
  const write = (kind: number, bytes: Uint8Array) => {
    const rec = Buffer.alloc(RECORD_HEAD + bytes.byteLength);
    rec.writeUInt8(kind, 0);
    rec.writeDoubleLE(now(), 1);
    rec.writeUInt32LE(bytes.byteLength, 9);
    rec.set(bytes, RECORD_HEAD);
    out.write(rec);
  };
  const process = channel.process.bind(channel);
  const pushReference = channel.pushReference.bind(channel);
  channel.process = (message) => {
    const bytes = message instanceof Uint8Array ? message : new Uint8Array(message);
    write(MIC, bytes);
    return process(message);
  };
  channel.pushReference = (pcm) => {
    write(REF, new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    pushReference(pcm);
  };
  return out;
}

export interface TapePlay {
  /** Epoch ms of each caller message that raised the event. */
  interruptions: number[];
  speechStarts: number[];
  /** Epoch ms of the first and last caller message. */
  from: number;
  to: number;
}

/**
 * Plays a tape through a channel built with its options and `bargeIn` overrides; `trace`, if
 * given, gets the barge-in detector's hops of each caller message (epoch ms of the message).
 */
export function playTape(path: string, bargeIn: MediaChannelOptions['bargeIn'] = {}, trace?: (at: number, hops: TracedHop[]) => void): TapePlay {
  const buf = readFileSync(path);
  const headLen = buf.readUInt32LE(0);
  const { options } = JSON.parse(buf.subarray(4, 4 + headLen).toString()) as { options: MediaChannelOptions };
  const channel = new MediaChannel({ ...options, bargeIn: { ...options.bargeIn, ...bargeIn } });
  if (trace) channel.traceHops(true);
  const play: TapePlay = { interruptions: [], speechStarts: [], from: NaN, to: NaN };
  for (let o = 4 + headLen; o + RECORD_HEAD <= buf.length; ) {
    const kind = buf.readUInt8(o);
    const at = buf.readDoubleLE(o + 1);
    const n = buf.readUInt32LE(o + 9);
    const body = buf.subarray(o + RECORD_HEAD, o + RECORD_HEAD + n);
    o += RECORD_HEAD + n;
    if (body.length < n) break; // a tape cut short (the process ended mid-write)
    const bytes = new Uint8Array(n);
    bytes.set(body);
    if (kind === REF) {
      channel.pushReference(new Int16Array(bytes.buffer, 0, n >> 1));
      continue;
    }
    if (Number.isNaN(play.from)) play.from = at;
    play.to = at;
    const frames = channel.process(bytes);
    if (frames === 0) continue;
    if (trace) trace(at, readHops(channel, frames));
    if (channel.events & ChannelEvents.interruption) play.interruptions.push(at);
    if (channel.events & ChannelEvents.speechStart) play.speechStarts.push(at);
  }
  return play;
}

// Construction options: the C++ (loaded raw, without the TS facade) refuses a wrong
// type, a non-integer, a non-finite number, a missing required key and an unknown
// key with VC_ERR_NATIVE_BAD_OPTION; the facade refuses them first with
// VC_ERR_BAD_OPTION. At every range boundary of the TS specs both sides agree.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import {
  Ambience, BargeInDetector, DtmfDetector, EchoChain, Framer, MediaChannel, Mixer, NativeError, Resampler, Vad, dtmfGenerate,
} from '../../src/audio/native.js';
import type { VcNativeAddon } from '../../src/audio/native-addon.js';
import { optionSpecs } from '../../src/audio/native-options.js';

const addon = createRequire(import.meta.url)(join(process.cwd(), 'build', 'Release', 'vc_native.node')) as VcNativeAddon;

type Opts = Record<string, unknown>;
interface Case {
  spec: keyof typeof optionSpecs;
  /** Valid facade options; `raw` is the same for the addon (enums as numbers). */
  base: Opts;
  raw?: Opts;
  facade: (o: Opts) => unknown;
  native: (o: Opts) => unknown;
  /** The facade takes an options object (DtmfDetector and Mixer take numbers). */
  object?: false;
}

const vad = { threshold: 0.5, startMs: 60, stopMs: 400 };
const bargeIn = { minDurationMs: 300, threshold: 0.5, maxEchoDelayMs: 300, echoMarginDb: 6, gapMs: 120 };
const channel = {
  inRateHz: 16000, procRateHz: 16000, refRateHz: 24000, frameMs: 20, maxMessageBytes: 4096, vad, bargeIn, referenceBufferMs: 2000,
};
const CASES: Case[] = [
  { spec: 'Framer', base: { sampleRateHz: 16000, frameMs: 20, maxMessageBytes: 4096 },
    facade: (o) => new Framer(o as never), native: (o) => new addon.Framer(o as never) },
  { spec: 'Resampler', base: { inRateHz: 16000, outRateHz: 24000, quality: 'fast', maxInputSamples: 320 },
    raw: { inRateHz: 16000, outRateHz: 24000, quality: 3, maxInputSamples: 320 },
    facade: (o) => new Resampler(o as never), native: (o) => new addon.Resampler(o as never) },
  { spec: 'EchoChain', base: { inRateHz: 16000, outRateHz: 24000, frameMs: 20, maxMessageBytes: 2048, quality: 'low', vad },
    raw: { inRateHz: 16000, outRateHz: 24000, frameMs: 20, maxMessageBytes: 2048, quality: 0, vad },
    facade: (o) => new EchoChain(o as never), native: (o) => new addon.EchoChain(o as never) },
  { spec: 'Vad', base: { sampleRateHz: 16000, frameMs: 20, ...vad },
    facade: (o) => new Vad(o as never), native: (o) => new addon.Vad(o as never) },
  { spec: 'BargeIn', base: { micRateHz: 16000, refRateHz: 24000, frameMs: 20, bargeIn, vad },
    facade: (o) => new BargeInDetector(o as never), native: (o) => new addon.BargeIn(o as never) },
  { spec: 'MediaChannel', base: { ...channel, quality: 'high' }, raw: { ...channel, quality: 2 },
    facade: (o) => new MediaChannel(o as never), native: (o) => new addon.MediaChannel(o as never) },
  { spec: 'dtmfGenerate', base: { sampleRateHz: 8000, durationMs: 80, gapMs: 40, levelDbfs: -10 },
    facade: (o) => dtmfGenerate('5', o as never), native: (o) => addon.dtmfGenerate('5', o as never) },
  { spec: 'DtmfDetector', base: { sampleRateHz: 8000 }, object: false,
    facade: (o) => new DtmfDetector(o.sampleRateHz as never), native: (o) => new addon.DtmfDetector(o as never) },
  { spec: 'Ambience', base: { sampleRateHz: 16000, kind: 'brown', level: 30, seed: 7 },
    raw: { sampleRateHz: 16000, kind: 2, level: 30, seed: 7 },
    facade: (o) => new Ambience(o as never), native: (o) => new addon.Ambience(o as never) },
  { spec: 'Mixer', base: { gainADb: -6, gainBDb: 3 }, object: false,
    facade: (o) => new Mixer(o.gainADb as never, o.gainBDb as never), native: (o) => new addon.Mixer(o as never) },
];

/** 'ok', or the code of the error thrown. */
function outcome(make: () => unknown): string {
  try {
    make();
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

/** The facade throws its own NativeError, VC_ERR_BAD_OPTION, naming the class. */
function facadeRefuses(t: Test, c: Case, o: Opts, message: RegExp, what: string): void {
  let err: unknown;
  try { c.facade(o); } catch (e) { err = e; }
  t.ok(err instanceof NativeError, `${what}: facade throws a NativeError`);
  const cls = c.spec === 'BargeIn' ? 'BargeInDetector' : c.spec;
  t.match(err, { code: 'VC_ERR_BAD_OPTION', message: new RegExp(`^${cls}: .*${message.source}`) }, `${what}: facade`);
}

/** A copy of o with the value at a dotted path replaced (undefined deletes it). */
function withValue(o: Opts, path: string, v: unknown): Opts {
  const [k, ...rest] = path.split('.');
  const copy = { ...o };
  if (rest.length) copy[k] = withValue(o[k] as Opts, rest.join('.'), v);
  else if (v === undefined) delete copy[k];
  else copy[k] = v;
  return copy;
}

t.test('valid options are taken by both sides', async (t) => {
  for (const c of CASES) {
    const raw = c.raw ?? c.base;
    const object = c.object !== false;
    t.equal(outcome(() => c.facade(c.base)), 'ok', `${c.spec} facade`);
    t.equal(outcome(() => c.native(raw)), 'ok', `${c.spec} raw addon`);
    // Every known key present, the ones the base leaves out as undefined: missing, not wrong.
    const keys = Object.keys(optionSpecs[c.spec]);
    const allKeys = (o: Opts) => Object.fromEntries(keys.map((k) => [k, o[k]]));
    t.equal(outcome(() => c.native(allKeys(raw))), 'ok', `${c.spec} raw: undefined = missing`);
    if (object) t.equal(outcome(() => c.facade(allKeys(c.base))), 'ok', `${c.spec}: undefined = missing`);
    // Both sides require the same keys (the rest take their defaults).
    for (const k of keys) {
      const req = 'req' in optionSpecs[c.spec][k as never];
      t.equal(outcome(() => c.native(withValue(raw, k, undefined))), req ? 'VC_ERR_NATIVE_BAD_OPTION' : 'ok', `${c.spec} without ${k}: raw`);
      if (object) t.equal(outcome(() => c.facade(withValue(c.base, k, undefined))), req ? 'VC_ERR_BAD_OPTION' : 'ok', `${c.spec} without ${k}`);
    }
  }
});

t.test('the C++ refuses a wrong type, a non-integer and a misspelled key', async (t) => {
  const ch = { ...channel, quality: 1 };
  const bad: [string, () => unknown, RegExp][] = [
    ['wrong type', () => new addon.Framer({ sampleRateHz: '16000', frameMs: 20 } as never), /sampleRateHz must be a number/],
    ['wrong type, nested', () => new addon.MediaChannel({ ...ch, vad: { stopMs: '300' } } as never), /vad\.stopMs must be a number/],
    ['not an object', () => new addon.MediaChannel({ ...ch, bargeIn: 300 } as never), /bargeIn must be an object/],
    ['non-integer', () => new addon.Framer({ sampleRateHz: 16000, frameMs: 20.5 } as never), /frameMs must be an integer/],
    ['non-integer count', () => new addon.Resampler({ inRateHz: 8000, outRateHz: 16000, maxInputSamples: 10.25 }), /integer/],
    ['non-finite', () => new addon.Mixer({ gainADb: Number.NaN }), /gainADb must be a finite number/],
    ['infinite integer', () => new addon.Vad({ sampleRateHz: 16000, frameMs: 20, stopMs: Infinity }), /finite/],
    ['misspelled key', () => new addon.Framer({ sampleRateHz: 16000, frameMs: 20, maxMessageByte: 4096 } as never),
      /option maxMessageByte is not known \(known: sampleRateHz, frameMs, maxMessageBytes\)/],
    ['misspelled nested key', () => new addon.MediaChannel({ ...ch, vad: { stpMs: 300 } } as never), /vad\.stpMs is not known/],
    ['misspelled dtmf key', () => addon.dtmfGenerate('1', { sampleRateHz: 8000, gap: 40 } as never), /gap is not known/],
    ['missing required', () => new addon.Ambience({ sampleRateHz: 16000, level: 3 } as never), /kind is required/],
    ['seed outside uint32', () => new addon.Ambience({ sampleRateHz: 16000, kind: 0, level: 3, seed: -1 }), /seed/],
    ['not an options object', () => new addon.DtmfDetector(8000 as never), /options must be an object/],
  ];
  for (const [what, make, message] of bad) t.throws(make, { code: 'VC_ERR_NATIVE_BAD_OPTION', message }, what);
  const row = addon.statusTable().find((r) => r[0] === 'VC_ERR_NATIVE_BAD_OPTION');
  t.ok(row, 'BAD_OPTION is in the status table');
});

t.test('every class refuses them, raw and through the facade', async (t) => {
  for (const c of CASES) {
    const raw = c.raw ?? c.base;
    const key = Object.keys(optionSpecs[c.spec]).find((k) => typeof raw[k] === 'number')!;
    const integer = optionSpecs[c.spec][key as never]['kind'] === 'int';
    const misspelt = key.slice(0, -1);
    const wrong: [string, unknown, RegExp][] = [
      ['wrong type', String(raw[key]), /must be a number/],
      ['non-finite', Number.NaN, /must be a finite number/],
      ...(integer ? [['non-integer', (raw[key] as number) + 0.5, /must be an integer/] as [string, unknown, RegExp]] : []),
    ];
    for (const [what, v, message] of wrong) {
      t.throws(() => c.native(withValue(raw, key, v)), { code: 'VC_ERR_NATIVE_BAD_OPTION', message }, `${c.spec} ${key} ${what}: raw`);
      facadeRefuses(t, c, withValue(c.base, key, v), message, `${c.spec} ${key} ${what}`);
    }
    if (c.object === false) continue;
    const message = new RegExp(`option ${misspelt} is not known`);
    t.throws(() => c.native(withValue(raw, misspelt, raw[key])), { code: 'VC_ERR_NATIVE_BAD_OPTION', message }, `${c.spec} ${misspelt}: raw`);
    facadeRefuses(t, c, withValue(c.base, misspelt, raw[key]), message, `${c.spec} misspelled ${misspelt}`);
  }
  const refused = { code: 'VC_ERR_BAD_OPTION' };
  t.throws(() => new Resampler({ inRateHz: 8000, outRateHz: 16000, quality: 'best' as never }), { ...refused, message: /one of low/ });
  t.throws(() => new Framer({ sampleRateHz: 16000, frameMs: 20.5 as 20 }), { ...refused, message: /frameMs must be an integer/ });
  t.throws(() => new MediaChannel({ ...channel, bargeIn: { treshold: 0.4 } } as never), { ...refused, message: /bargeIn\.treshold is not known/ });
});

t.test('at each range boundary the facade and the C++ agree', async (t) => {
  type Rule = { kind: string; min?: number; max?: number; oneOf?: readonly number[]; f32?: true; spec?: Record<string, Rule> };
  function* ranged(spec: Record<string, Rule>, path = ''): Generator<[string, Rule]> {
    for (const [k, r] of Object.entries(spec)) {
      if (r.kind === 'obj') yield* ranged(r.spec!, `${path}${k}.`);
      else if (r.kind === 'int' || r.kind === 'num') yield [`${path}${k}`, r];
    }
  }
  let checked = 0;
  for (const c of CASES) {
    for (const [path, r] of ranged(optionSpecs[c.spec] as Record<string, Rule>)) {
      const lo = r.min!, hi = r.max!;
      const values = r.kind === 'int'
        ? [lo - 1, lo, hi, hi + 1, ...(r.oneOf ?? []).flatMap((v) => [v - 1, v, v + 1])]
        : [lo - 1e-3, lo, (lo + hi) / 2, hi, hi + 1e-3, ...(r.f32 ? [lo + 1e-50, hi - 1e-9] : [])];
      for (const v of values) {
        // A bad option is VC_ERR_BAD_OPTION from the facade and VC_ERR_NATIVE_BAD_OPTION from the C++.
        const viaFacade = outcome(() => c.facade(withValue(c.base, path, v))).replace('VC_ERR_BAD_OPTION', 'VC_ERR_NATIVE_BAD_OPTION');
        t.equal(viaFacade, outcome(() => c.native(withValue(c.raw ?? c.base, path, v))), `${c.spec} ${path}=${v}`);
        checked++;
      }
    }
  }
  t.ok(checked > 150, `${checked} boundary values`);
});

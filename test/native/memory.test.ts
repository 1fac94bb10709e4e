// Per-session native memory: resampler filter tables are shared per (in, out, quality),
// and instance state is sized by the largest call, not by the 64 KiB message limit.
import t from 'tap';
import { Framer, MediaChannel, Resampler, nativeDebug } from '../../src/audio/native.js';

t.test('resamplers of one ratio and quality share one filter table', async (t) => {
  // 12 kHz -> 32 kHz is used by no other test in this process, so its table is new here.
  const before = nativeDebug.resamplerTables();
  const a = new Resampler({ inRateHz: 12000, outRateHz: 32000, maxInputSamples: 240 });
  const one = nativeDebug.resamplerTables();
  t.equal(one.tables, before.tables + 1, 'the first instance designs a table');
  const tableBytes = one.bytes - before.bytes;
  t.ok(tableBytes > 1000, `table of ${tableBytes} bytes`);
  const more = Array.from({ length: 20 }, () => new Resampler({ inRateHz: 12000, outRateHz: 32000, maxInputSamples: 240 }));
  t.same(nativeDebug.resamplerTables(), one, '20 more instances: no new table, no new bytes');
  // Same ratio inside MediaChannel shares it too.
  const ch = new MediaChannel({ inRateHz: 12000, procRateHz: 16000, refRateHz: 16000 });
  const withChannel = nativeDebug.resamplerTables();
  t.equal(withChannel.tables, one.tables + 1, '12000 -> 16000 is another ratio: one more table');
  const ch2 = new MediaChannel({ inRateHz: 12000, procRateHz: 16000, refRateHz: 16000 });
  t.same(nativeDebug.resamplerTables(), withChannel, 'a second channel of that ratio shares it');
  // Another quality is another table.
  const fast = new Resampler({ inRateHz: 12000, outRateHz: 32000, quality: 'fast', maxInputSamples: 240 });
  t.equal(nativeDebug.resamplerTables().tables, withChannel.tables + 1, "quality 'fast' has its own table");
  // Shared tables do not couple the streams: same input, same output, whatever the neighbours did.
  const x = Int16Array.from({ length: 240 }, (_, i) => Math.round(8000 * Math.sin(i / 7)));
  more[3].process(Int16Array.from({ length: 240 }, (_, i) => (i * 7919) % 30000));
  const n = a.process(x);
  const b = new Resampler({ inRateHz: 12000, outRateHz: 32000, maxInputSamples: 240 });
  t.equal(b.process(x), n);
  t.same(b.output.subarray(0, n), a.output.subarray(0, n), 'identical output from a fresh instance');
  void [ch, ch2, fast];
});

t.test('state is sized by the largest call', async (t) => {
  // The echo pipeline: 16 -> 24 kHz, at most 4 frames of 20 ms per call.
  const small = new Resampler({ inRateHz: 16000, outRateHz: 24000, maxInputSamples: 1280 });
  const big = new Resampler({ inRateHz: 16000, outRateHz: 24000 });
  t.comment(`16k->24k state: ${small.stateBytes} B (max 1280 samples per call), ${big.stateBytes} B (default 32768)`);
  t.ok(small.stateBytes <= 12 * 1024, `16k->24k resampler for 1280-sample calls owns ${small.stateBytes} B`);
  t.ok(small.stateBytes < big.stateBytes, 'smaller calls, smaller state');
  // Large input still works through a small block (several internal passes), bit for bit.
  const x = Int16Array.from({ length: 1280 }, (_, i) => Math.round(9000 * Math.sin(i / 5) + 3000 * Math.sin(i / 1.3)));
  const tiny = new Resampler({ inRateHz: 16000, outRateHz: 24000, maxInputSamples: 1280 });
  const n1 = tiny.process(x), n2 = big.process(x);
  t.equal(n1, n2);
  t.same(tiny.output.subarray(0, n1), big.output.subarray(0, n2), 'same output whatever the block size');
  const f = new Framer({ sampleRateHz: 16000, frameMs: 20, maxMessageBytes: 2048 });
  t.equal(f.output.length, 4 * 320, 'framer output holds the frames of one 2 KiB message');
});

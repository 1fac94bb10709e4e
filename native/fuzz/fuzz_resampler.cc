// libFuzzer: arbitrary rates, quality and input split. Output counts must match
// OutputSamplesFor, and a split run must equal the one-shot run bit for bit.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "vc/resampler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  static const int kRates[] = {8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000};
  const int in = fdp.ConsumeBool() ? fdp.PickValueInArray(kRates) : fdp.ConsumeIntegralInRange<int>(7000, 50000);
  const int out = fdp.ConsumeBool() ? fdp.PickValueInArray(kRates) : fdp.ConsumeIntegralInRange<int>(7000, 50000);
  const int q = fdp.ConsumeIntegralInRange<int>(-1, 3);
  // Filter design is the slow part; reuse designed pairs through Reset(),
  // which must behave exactly like a fresh Init.
  using Key = std::tuple<int, int, int>;
  static std::map<Key, std::unique_ptr<vc::Resampler[]>> cache;
  std::unique_ptr<vc::Resampler[]> fresh;
  vc::Resampler* pair = nullptr;
  auto it = cache.find(Key(in, out, q));
  if (it != cache.end()) {
    pair = it->second.get();
    pair[0].Reset();
    pair[1].Reset();
  } else {
    fresh.reset(new vc::Resampler[2]);
    if (!vc::Ok(fresh[0].Init(in, out, static_cast<vc::ResamplerQuality>(q)))) return 0;
    if (!vc::Ok(fresh[1].Init(in, out, static_cast<vc::ResamplerQuality>(q)))) abort();
    pair = fresh.get();
    if (cache.size() < 256) cache[Key(in, out, q)] = std::move(fresh);
  }
  vc::Resampler& a = pair[0];
  vc::Resampler& b = pair[1];
  std::vector<size_t> cuts;
  for (int i = 0; i < 8; ++i) cuts.push_back(fdp.ConsumeIntegralInRange<size_t>(0, 3000));
  cuts.push_back(1);  // guarantees progress when every other cut is empty
  std::vector<uint8_t> raw = fdp.ConsumeRemainingBytes<uint8_t>();
  std::vector<int16_t> x(raw.size() / 2);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int16_t>(static_cast<uint16_t>(raw[2 * i] | (raw[2 * i + 1] << 8)));
  std::vector<int16_t> whole(a.OutputSamplesFor(x.size()) + 1), parts;
  size_t n = 0;
  if (!vc::Ok(a.Process(x.data(), x.size(), whole.data(), whole.size(), &n))) abort();
  if (n + 1 != whole.size()) abort();
  size_t o = 0;
  for (size_t c = 0; o < x.size(); c = (c + 1) % cuts.size()) {
    const size_t k = std::min(cuts[c], x.size() - o);
    std::vector<int16_t> buf(b.OutputSamplesFor(k));
    size_t m = 0;
    // One sample short must fail without touching the state.
    if (buf.size() > 0 && vc::Ok(b.Process(x.data() + o, k, buf.data(), buf.size() - 1, &m))) abort();
    if (!vc::Ok(b.Process(x.data() + o, k, buf.data(), buf.size(), &m)) || m != buf.size()) abort();
    parts.insert(parts.end(), buf.begin(), buf.end());
    o += k;
  }
  if (parts.size() != n) abort();
  for (size_t i = 0; i < n; ++i)
    if (parts[i] != whole[i]) abort();
  return 0;
}

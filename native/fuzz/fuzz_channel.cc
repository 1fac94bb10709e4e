// libFuzzer: the whole per-message path (MediaChannel) on arbitrary configs,
// messages and reference audio. Frame counts must match the input duration.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "vc/channel.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  static const int kRates[] = {8000, 16000, 24000, 44100, 48000};
  static const int kMs[] = {10, 20, 30};
  vc::ChannelConfig c;
  c.inRateHz = fdp.PickValueInArray(kRates);
  c.procRateHz = fdp.ConsumeBool() ? 8000 : 16000;
  c.refRateHz = fdp.PickValueInArray(kRates);
  c.frameMs = fdp.PickValueInArray(kMs);
  static const size_t kMax[] = {2, 640, 4096, 8192};
  static const int kMin[] = {0, 300, 1000}, kEcho[] = {0, 300, 990};
  c.maxMessageBytes = fdp.PickValueInArray(kMax);
  c.bargeIn.minDurationMs = fdp.PickValueInArray(kMin);
  c.bargeIn.maxEchoDelayMs = fdp.PickValueInArray(kEcho);
  // Init (filter design) dominates; reuse channels through Reset(), which
  // must behave like a fresh Init.
  using Key = std::tuple<int, int, int, int, size_t, int, int>;
  static std::map<Key, std::unique_ptr<vc::MediaChannel>> cache;
  const Key key(c.inRateHz, c.procRateHz, c.refRateHz, c.frameMs, c.maxMessageBytes, c.bargeIn.minDurationMs,
                c.bargeIn.maxEchoDelayMs);
  std::unique_ptr<vc::MediaChannel>& slot = cache[key];
  if (!slot) {
    slot.reset(new vc::MediaChannel);
    if (!vc::Ok(slot->Init(c))) abort();  // every config above is valid
  } else {
    slot->Reset();
  }
  vc::MediaChannel& ch = *slot;
  size_t inSamples = 0, frames = 0;
  while (fdp.remaining_bytes() > 0) {
    if (fdp.ConsumeBool()) {
      std::vector<uint8_t> ref = fdp.ConsumeBytes<uint8_t>(fdp.ConsumeIntegralInRange<size_t>(0, 2048));
      std::vector<int16_t> pcm(ref.size() / 2);
      for (size_t i = 0; i < pcm.size(); ++i) pcm[i] = static_cast<int16_t>(ref[2 * i] | (ref[2 * i + 1] << 8));
      if (!vc::Ok(ch.PushReference(pcm.data(), pcm.size()))) abort();
      continue;
    }
    std::vector<uint8_t> msg = fdp.ConsumeBytes<uint8_t>(fdp.ConsumeIntegralInRange<size_t>(0, c.maxMessageBytes + 3));
    vc::ChannelResult r;
    vc::Status s = ch.Process(msg.data(), msg.size(), &r);
    if (!vc::Ok(s)) {
      if (s != vc::Status::kOddLength && s != vc::Status::kOversized) abort();
      continue;
    }
    inSamples += msg.size() / 2;
    frames += r.frames;
    for (size_t f = 0; f < r.frames; ++f) {
      const float p = ch.probabilities()[f];
      if (!(p >= 0.f && p <= 1.f)) abort();
    }
  }
  // Frames never exceed the resampled duration of the accepted input.
  const double procSamples = static_cast<double>(inSamples) * c.procRateHz / c.inRateHz + 1;
  if (static_cast<double>(frames * ch.frameSamples()) > procSamples) abort();
  return 0;
}

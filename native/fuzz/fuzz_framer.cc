// libFuzzer: arbitrary message sequences (odd, empty, oversized) through the
// Framer; frames must be the exact concatenation of accepted input.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <vector>

#include "vc/framer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  static const int kRates[] = {8000, 16000, 22050, 24000, 44100, 48000, 7999, 48001, 0};
  static const int kMs[] = {10, 20, 30, 25, 0};
  vc::Framer f;
  const size_t maxMsg = fdp.ConsumeIntegralInRange<size_t>(0, 4096);
  if (!vc::Ok(f.Init(fdp.PickValueInArray(kRates), fdp.PickValueInArray(kMs), maxMsg))) return 0;
  std::vector<int16_t> out(f.MaxFramesPerPush() * f.frameSamples());
  std::vector<int16_t> accepted, framed;
  while (fdp.remaining_bytes() > 0) {
    std::vector<uint8_t> msg = fdp.ConsumeBytes<uint8_t>(fdp.ConsumeIntegralInRange<size_t>(0, maxMsg + 3));
    size_t frames = 0;
    vc::Status s = f.Push(msg.data(), msg.size(), out.data(), out.size(), &frames);
    if (!vc::Ok(s)) {
      if (frames != 0) abort();
      if (s != vc::Status::kOddLength && s != vc::Status::kOversized) abort();
      continue;
    }
    for (size_t i = 0; i + 1 < msg.size(); i += 2)
      accepted.push_back(static_cast<int16_t>(static_cast<uint16_t>(msg[i] | (msg[i + 1] << 8))));
    framed.insert(framed.end(), out.begin(), out.begin() + frames * f.frameSamples());
  }
  if (framed.size() + f.pendingSamples() != accepted.size()) abort();
  for (size_t i = 0; i < framed.size(); ++i)
    if (framed[i] != accepted[i]) abort();
  return 0;
}

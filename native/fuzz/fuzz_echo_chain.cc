// libFuzzer: EchoChain (frames -> VAD -> resampler in one call) on arbitrary rates,
// frame sizes and messages (odd and oversized included). Its output, frame counts and
// VAD results must equal Framer + Vad + Resampler fed the same accepted messages.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "vc/echo_chain.h"
#include "vc/framer.h"
#include "vc/resampler.h"
#include "vc/vad.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  static const int kRates[] = {8000, 16000, 24000, 32000, 44100, 48000};
  static const int kMs[] = {10, 20, 30};
  static const size_t kMax[] = {2, 640, 2048, 4096};
  const int in = fdp.PickValueInArray(kRates), out = fdp.PickValueInArray(kRates);
  const int ms = fdp.PickValueInArray(kMs);
  const size_t maxBytes = fdp.PickValueInArray(kMax);
  const int q = fdp.ConsumeIntegralInRange<int>(0, 3);
  vc::EchoChain chain;
  if (!vc::Ok(chain.Init(in, out, ms, maxBytes, static_cast<vc::ResamplerQuality>(q)))) {
    if (in % 100 == 0) abort();  // every rate above with whole 10 ms frames is valid
    return 0;
  }
  vc::Framer framer;
  vc::Vad vad;
  vc::Resampler rs;
  if (!vc::Ok(framer.Init(in, ms, maxBytes)) || !vc::Ok(vad.Init(in, ms))) abort();
  const bool resample = in != out;
  if (resample && !vc::Ok(rs.Init(in, out, static_cast<vc::ResamplerQuality>(q)))) abort();
  const size_t fs = chain.frameSamples();
  std::vector<int16_t> got(chain.MaxOutputSamples()), frames(framer.MaxFramesPerPush() * fs), want;
  while (fdp.remaining_bytes() > 0) {
    std::vector<uint8_t> msg = fdp.ConsumeBytes<uint8_t>(fdp.ConsumeIntegralInRange<size_t>(0, maxBytes + 3));
    size_t n = 0, nf = 0;
    vc::VadResult v;
    const vc::Status s = chain.Push(msg.data(), msg.size(), got.data(), got.size(), &n, &nf, &v);
    size_t f = 0;
    const vc::Status sf = framer.Push(msg.data(), msg.size(), frames.data(), frames.size(), &f);
    if (s != sf) abort();  // same validation (odd, oversized)
    if (!vc::Ok(s)) continue;
    if (nf != f || n > got.size()) abort();
    vc::VadResult w;
    int events = 0;
    for (size_t i = 0; i < f; ++i) {
      vad.ProcessFrame(frames.data() + i * fs, &w);
      events |= w.events;
    }
    if (f && (w.probability != v.probability || w.state != v.state || events != v.events)) abort();
    want.resize(resample ? rs.OutputSamplesFor(f * fs) : f * fs);
    size_t m = f * fs;
    if (resample) {
      if (!vc::Ok(rs.Process(frames.data(), f * fs, want.data(), want.size(), &m))) abort();
    } else if (m) {
      std::memcpy(want.data(), frames.data(), m * sizeof(int16_t));
    }
    if (m != n || (n && std::memcmp(want.data(), got.data(), n * sizeof(int16_t)) != 0)) abort();
  }
  return 0;
}

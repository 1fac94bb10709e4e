// Streaming polyphase windowed-sinc (Kaiser) resampler for any rational ratio
// between 8 and 48 kHz (reduced ratio terms up to 1024). State carries across calls, so splitting the input
// anywhere gives bit-identical output.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "vc/status.h"

namespace vc {

enum class ResamplerQuality : int {
  kLow = 0,      // ~60 dB stopband, passband to 0.80 x lower Nyquist
  kDefault = 1,  // >=80 dB stopband, <=0.1 dB ripple to 0.90 x lower Nyquist
  kHigh = 2,     // ~100 dB stopband, passband to 0.92 x lower Nyquist
  kFast = 3,     // 0.9 passband, >=80 dB from 1.1 x Nyquist (aliases only in 0.9-1.0)
};

// Immutable filter table (phases x taps). One per (in rate, out rate, quality) is
// alive at a time and shared by every Resampler of that ratio (reference counted).
struct ResamplerFilter;

// Live shared filter tables and their coefficient bytes (for tests and memory figures).
struct ResamplerTableStats { size_t tables; size_t bytes; };
ResamplerTableStats ResamplerTables();

// Small-ratio kernel in use: "avx512", "avx2" or "generic" (chosen from the CPU at
// first use; VC_NATIVE_SIMD=avx512|avx2|generic overrides). SetResamplerSimd returns
// false for a level the CPU cannot run (tests compare the levels bit for bit).
const char* ResamplerSimd();
bool SetResamplerSimd(const char* level);

class Resampler {
 public:
  // maxBlockSamples: input buffered per internal pass (0 = 2048). Larger calls loop in
  // passes, so it only trades state memory against per-pass overhead; give the largest
  // call you make (e.g. one message) to keep the per-instance state small.
  Status Init(int inRateHz, int outRateHz,
              ResamplerQuality q = ResamplerQuality::kDefault, size_t maxBlockSamples = 0);

  // Exact number of output samples that n more input samples will produce.
  size_t OutputSamplesFor(size_t nIn) const;
  // Resamples n input samples into out; *nOut gets the count written.
  Status Process(const int16_t* in, size_t n, int16_t* out, size_t outCap,
                 size_t* nOut);
  Status ProcessFloat(const float* in, size_t n, float* out, size_t outCap,
                      size_t* nOut);
  void Reset();

  int tapsPerPhase() const { return taps_; }
  int phases() const { return up_; }
  // Delay of the filter in output samples (for alignment in tests).
  double delayOutSamples() const;
  // The shared table this instance uses (same pointer = same table).
  const void* filterId() const { return filter_.get(); }
  // Heap bytes owned by this instance (its sample buffers; the shared table excluded).
  size_t stateBytes() const { return buf_.capacity() * sizeof(float); }

 private:
  template <typename In, typename Out>
  Status Run(const In* in, size_t n, Out* out, size_t outCap, size_t* nOut);

  static constexpr int kMaxPhases = 1024;  // 44.1k<->48k needs 160, 22.05k->16k 320
  static constexpr size_t kBlock = 2048;   // default input samples buffered per pass
  static constexpr size_t kPad = 64;       // vector lanes may read past the last sample
  std::shared_ptr<const ResamplerFilter> filter_;
  const float* coef_ = nullptr;  // filter_->coef: up_ phases x taps_, time reversed
  int up_ = 1, down_ = 1, taps_ = 0;
  int stepInt_ = 0, stepFrac_ = 0;
  size_t cap_ = 0;   // buffer capacity in samples: history + one block
  // Large ratios: taps_-1 history + new samples, contiguous. Small ratios ("vertical"):
  // the same samples split into down_ streams of streamLen_ (sample i in stream i % down_).
  std::vector<float> buf_;
  size_t streamLen_ = 0;
  size_t fill_ = 0;  // valid samples (buffer indices 0 .. fill_-1)
  size_t pos_ = 0;   // buffer index of the newest sample of next output
  int phase_ = 0;
  bool vertical_ = false;  // small ratio: vectorise across outputs
  long long totalIn_ = 0, totalOut_ = 0;
};

}  // namespace vc

// Streaming polyphase windowed-sinc (Kaiser) resampler for any rational ratio
// between 8 and 48 kHz (reduced ratio terms up to 1024). State carries across calls, so splitting the input
// anywhere gives bit-identical output.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vc/status.h"

namespace vc {

enum class ResamplerQuality : int {
  kLow = 0,      // ~60 dB stopband, passband to 0.80 x lower Nyquist
  kDefault = 1,  // >=80 dB stopband, <=0.1 dB ripple to 0.90 x lower Nyquist
  kHigh = 2,     // ~100 dB stopband, passband to 0.92 x lower Nyquist
  kFast = 3,     // 0.9 passband, >=80 dB from 1.1 x Nyquist (aliases only in 0.9-1.0)
};

class Resampler {
 public:
  Status Init(int inRateHz, int outRateHz,
              ResamplerQuality q = ResamplerQuality::kDefault);

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

 private:
  template <typename In, typename Out>
  Status Run(const In* in, size_t n, Out* out, size_t outCap, size_t* nOut);

  static constexpr int kMaxPhases = 1024;  // 44.1k<->48k needs 160, 22.05k->16k 320
  static constexpr size_t kBlock = 2048;
  static constexpr size_t kPad = 64;  // vector lanes may read past the last sample  // input samples buffered per pass
  int up_ = 1, down_ = 1, taps_ = 0;
  int stepInt_ = 0, stepFrac_ = 0;
  std::vector<float> coef_;  // up_ phases x taps_, time reversed
  std::vector<float> buf_;   // taps_-1 history + kBlock new samples
  size_t fill_ = 0;          // valid samples in buf_
  size_t pos_ = 0;           // buffer index of the newest sample of next output
  int phase_ = 0;
  bool vertical_ = false;  // small ratio: vectorise across outputs
  size_t streamLen_ = 0;
  std::vector<float> streams_, vy_;
  long long totalIn_ = 0, totalOut_ = 0;
};

}  // namespace vc

// Whether the mic's waveform follows the agent's (the reference's) at a given echo delay: the
// normalized cross-correlation of the two, block-averaged to 4 kHz and pre-emphasized, over the
// mic's last 250 ms (or less) and every sample lag within a hop (10 ms) of the delay. An echo keeps the
// waveform: the held-out live calls' paths (band-limited, clipped, mu-law) gave 0.6-0.96 at their
// delay. A caller does not, however much the shape of their spectrum looks like the agent's,
// which fools the band-shape delay tracker (bargein.cc): 0.02-0.55 at the lags it matched.
#pragma once
#include <cstdint>
#include <vector>

#include "vc/status.h"

namespace vc {

class WaveformLag {
 public:
  // Rates: multiples of 100 Hz (10 ms hops); maxDelayMs: the longest delay At() is asked about.
  Status Init(int micRateHz, int refRateHz, int maxDelayMs);
  void Reset();
  // One 10 ms hop of each (ref null: silence).
  void Push(const int16_t* mic, const int16_t* ref);
  // The best |correlation| over the mic's last windowMs (up to 250) and the sample lags within a
  // hop of lagHops; 0 if either is silent.
  float At(int lagHops, int windowMs);

 private:
  static constexpr int kRate = 4000;
  static constexpr int kHop = kRate / 100;
  static constexpr int kWindow = kRate / 4;  // 250 ms
  static constexpr float kPreEmphasis = 0.95f;  // flattens the voices' low harmonics, which match by chance
  // A hop of n samples (null: silence) as kHop block means, pre-emphasized.
  static void Decimate(const int16_t* x, int n, float* last, float* out);
  int micHop_ = 160, refHop_ = 160, maxLagHops_ = 0, refLen_ = 0;
  std::vector<float> mic_, ref_;  // rings of the decimated signals
  int micHead_ = 0, refHead_ = 0;
  float micLast_ = 0, refLast_ = 0;  // the pre-emphasis' previous samples
};

}  // namespace vc

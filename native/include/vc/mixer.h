// Mixer: sums two PCM16 streams with per-input gain and a soft limiter so the
// sum never wraps or hard-clips.
#pragma once
#include <cstddef>
#include <cstdint>

#include "vc/status.h"

namespace vc {

// Soft knee: identity below kneeFraction * full scale, tanh-shaped above, so
// the output stays inside int16 range without a hard corner.
float SoftClip(float v, float knee = 0.85f * 32767.f);

class Mixer {
 public:
  Status SetGains(double gainADb, double gainBDb);
  // out[i] = clip(a[i]*ga + b[i]*gb). b may be null (gain only). out may alias a.
  void Mix(const int16_t* a, const int16_t* b, size_t n, int16_t* out) const;
  size_t clippedSamples() const { return clipped_; }

 private:
  float ga_ = 1.f, gb_ = 1.f;
  mutable size_t clipped_ = 0;  // samples that went through the limiter
};

}  // namespace vc

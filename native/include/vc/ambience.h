// Procedural background ambience so an agent line never sounds dead.
#pragma once
#include <cstddef>
#include <cstdint>

#include "vc/status.h"

namespace vc {

enum class AmbienceKind : int { kWhite = 0, kPink = 1, kBrown = 2, kOfficeHum = 3 };

class Ambience {
 public:
  // level 0..100: 0 is silence, 100 is about -12 dBFS RMS (-72 + 0.6*level dB).
  Status Init(int sampleRateHz, AmbienceKind kind, int level, uint32_t seed = 1);
  Status SetLevel(int level);
  // Writes n samples (adds to out when mix is true, saturating).
  void Generate(int16_t* out, size_t n, bool mix);
  float NextSample();  // unscaled, about unit RMS

 private:
  float White();       // uniform, unit RMS
  uint32_t rng_ = 1;
  int rateHz_ = 0;
  AmbienceKind kind_ = AmbienceKind::kWhite;
  float gain_ = 0;
  float pink_[7] = {0};
  float brown_ = 0;
  double humPhase_ = 0, humStep_ = 0;
  float lp_ = 0, lpCoef_ = 0, swell_ = 0, swellPhase_ = 0, swellStep_ = 0;
};

}  // namespace vc

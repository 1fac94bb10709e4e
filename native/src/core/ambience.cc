#include "vc/ambience.h"

#include <cmath>

namespace vc {

Status Ambience::Init(int sampleRateHz, AmbienceKind kind, int level, uint32_t seed) {
  if (!RateOk(sampleRateHz)) return Status::kUnsupportedRate;
  int k = static_cast<int>(kind);
  if (k < 0 || k > 3) return Status::kInvalidArgument;
  rateHz_ = sampleRateHz;
  kind_ = kind;
  rng_ = seed ? seed : 0x9E3779B9u;
  for (float& p : pink_) p = 0;
  brown_ = lp_ = swell_ = 0;
  humPhase_ = 0;
  humStep_ = 2 * M_PI * 60.0 / sampleRateHz;  // mains hum (North America)
  lpCoef_ = static_cast<float>(1.0 - std::exp(-2 * M_PI * 400.0 / sampleRateHz));
  swellPhase_ = 0;
  swellStep_ = static_cast<float>(2 * M_PI * 0.13 / sampleRateHz);  // slow HVAC swell
  return SetLevel(level);
}

Status Ambience::SetLevel(int level) {
  if (level < 0 || level > 100) return Status::kInvalidArgument;
  gain_ = level == 0 ? 0.f : static_cast<float>(32768.0 * std::pow(10.0, (-72.0 + 0.6 * level) / 20.0));
  return Status::kOk;
}

float Ambience::White() {
  rng_ ^= rng_ << 13;  // xorshift32: cheap and good enough for noise
  rng_ ^= rng_ >> 17;
  rng_ ^= rng_ << 5;
  return (static_cast<float>(rng_) * (1.0f / 4294967296.0f) - 0.5f) * 3.4641016f;  // unit RMS
}

float Ambience::NextSample() {
  const float w = White();
  switch (kind_) {
    case AmbienceKind::kWhite: return w;
    case AmbienceKind::kPink: {
      // Kellet's refined pink filter: -3 dB/octave within 0.05 dB.
      pink_[0] = 0.99886f * pink_[0] + w * 0.0555179f;
      pink_[1] = 0.99332f * pink_[1] + w * 0.0750759f;
      pink_[2] = 0.96900f * pink_[2] + w * 0.1538520f;
      pink_[3] = 0.86650f * pink_[3] + w * 0.3104856f;
      pink_[4] = 0.55000f * pink_[4] + w * 0.5329522f;
      pink_[5] = -0.7616f * pink_[5] - w * 0.0168980f;
      float p = pink_[0] + pink_[1] + pink_[2] + pink_[3] + pink_[4] + pink_[5] + pink_[6] + w * 0.5362f;
      pink_[6] = w * 0.115926f;
      return p * 0.30f;
    }
    case AmbienceKind::kBrown: {
      brown_ = 0.998f * brown_ + 0.0632f * w;  // leaky integrator, -6 dB/octave
      return brown_ * 0.79f;
    }
    case AmbienceKind::kOfficeHum: {
      humPhase_ += humStep_;
      if (humPhase_ > 2 * M_PI) humPhase_ -= 2 * M_PI;
      const float hum = static_cast<float>(0.5 * std::sin(humPhase_) + 0.3 * std::sin(2 * humPhase_) +
                                           0.15 * std::sin(3 * humPhase_));
      lp_ += lpCoef_ * (w - lp_);  // low-passed air noise
      swellPhase_ += swellStep_;
      if (swellPhase_ > 6.2831853f) swellPhase_ -= 6.2831853f;
      const float swell = 1.0f + 0.3f * std::sin(swellPhase_);
      return 0.45f * hum + 2.2f * lp_ * swell;
    }
  }
  return w;
}

void Ambience::Generate(int16_t* out, size_t n, bool mix) {
  for (size_t i = 0; i < n; ++i) {
    float v = NextSample() * gain_;
    if (mix) v += out[i];
    if (v > 32767.f) v = 32767.f;
    if (v < -32768.f) v = -32768.f;
    out[i] = static_cast<int16_t>(std::lrint(v));
  }
}

}  // namespace vc

#include "vc/mixer.h"

#include <cmath>

namespace vc {

float SoftClip(float v, float knee) {
  const float a = std::fabs(v);
  if (a <= knee) return v;
  const float room = 32767.f - knee;
  const float y = knee + room * std::tanh((a - knee) / room);
  return v < 0 ? -y : y;
}

Status Mixer::SetGains(double gainADb, double gainBDb) {
  if (!(gainADb >= -96 && gainADb <= 24 && gainBDb >= -96 && gainBDb <= 24)) return Status::kInvalidArgument;
  ga_ = static_cast<float>(std::pow(10.0, gainADb / 20.0));
  gb_ = static_cast<float>(std::pow(10.0, gainBDb / 20.0));
  return Status::kOk;
}

void Mixer::Mix(const int16_t* a, const int16_t* b, size_t n, int16_t* out) const {
  const float knee = 0.85f * 32767.f;
  for (size_t i = 0; i < n; ++i) {
    float v = a[i] * ga_ + (b ? b[i] * gb_ : 0.f);
    if (std::fabs(v) > knee) {
      ++clipped_;
      v = SoftClip(v, knee);
    }
    out[i] = static_cast<int16_t>(std::lrint(v));
  }
}

}  // namespace vc

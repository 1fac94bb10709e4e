#include "vc/dtmf.h"

#include <cmath>

namespace vc {

namespace {
const char kKeys[] = "123A456B789C*0#D";
const double kLow[4] = {697, 770, 852, 941};
const double kHigh[4] = {1209, 1336, 1477, 1633};
}  // namespace

int DtmfDigitIndex(char d) {
  if (d >= 'a' && d <= 'd') d = static_cast<char>(d - 'a' + 'A');
  for (int i = 0; i < 16; ++i)
    if (kKeys[i] == d) return i;
  return -1;
}

Status DtmfGenerator::Init(int sampleRateHz, double levelDbfs) {
  if (!RateOk(sampleRateHz)) return Status::kUnsupportedRate;
  if (!(levelDbfs <= -6.0 && levelDbfs >= -60.0)) return Status::kInvalidArgument;
  rateHz_ = sampleRateHz;
  amp_ = 32767.0 * std::pow(10.0, levelDbfs / 20.0);
  return Status::kOk;
}

size_t DtmfGenerator::SamplesFor(int rateHz, int durationMs, int gapMs) {
  return static_cast<size_t>(rateHz) * static_cast<size_t>(durationMs + gapMs) / 1000;
}

Status DtmfGenerator::Generate(char digit, int durationMs, int gapMs, int16_t* out,
                               size_t outCap, size_t* nOut) {
  *nOut = 0;
  if (rateHz_ == 0) return Status::kInvalidArgument;
  const int idx = DtmfDigitIndex(digit);
  if (idx < 0) return Status::kInvalidDigit;
  if (durationMs < 0 || gapMs < 0 || durationMs > 10000 || gapMs > 10000) return Status::kInvalidArgument;
  const size_t tone = static_cast<size_t>(rateHz_) * durationMs / 1000;
  const size_t total = SamplesFor(rateHz_, durationMs, gapMs);
  if (total > outCap) return Status::kBufferTooSmall;
  const double wl = 2 * M_PI * kLow[idx / 4] / rateHz_, wh = 2 * M_PI * kHigh[idx % 4] / rateHz_;
  const size_t ramp = static_cast<size_t>(rateHz_) / 500;  // 2 ms fade avoids clicks
  for (size_t i = 0; i < total; ++i) {
    double v = 0;
    if (i < tone) {
      double g = 1.0;
      if (i < ramp) g = static_cast<double>(i) / ramp;
      if (tone - i < ramp) g = static_cast<double>(tone - i) / ramp;
      v = g * amp_ * (std::sin(wl * i) + std::sin(wh * i));
    }
    out[i] = static_cast<int16_t>(std::lrint(v));
  }
  *nOut = total;
  return Status::kOk;
}

Status DtmfDetector::Init(int sampleRateHz) {
  if (!RateOk(sampleRateHz)) return Status::kUnsupportedRate;
  rateHz_ = sampleRateHz;
  blockSamples_ = sampleRateHz * 256 / 10000;  // 25.6 ms: ~39 Hz bins, fits a 40 ms tone
  for (int i = 0; i < 4; ++i) {
    coef_[i] = static_cast<float>(2 * std::cos(2 * M_PI * kLow[i] / rateHz_));
    coef_[4 + i] = static_cast<float>(2 * std::cos(2 * M_PI * kHigh[i] / rateHz_));
  }
  Reset();
  return Status::kOk;
}

void DtmfDetector::Reset() {
  for (int i = 0; i < 8; ++i) s1_[i] = s2_[i] = 0;
  energy_ = 0;
  count_ = 0;
  last_ = reported_ = 0;
}

char DtmfDetector::Classify() const {
  float p[8];
  for (int i = 0; i < 8; ++i) p[i] = s1_[i] * s1_[i] + s2_[i] * s2_[i] - coef_[i] * s1_[i] * s2_[i];
  int lo = 0, hi = 4;
  for (int i = 1; i < 4; ++i) {
    if (p[i] > p[lo]) lo = i;
    if (p[4 + i] > p[hi]) hi = 4 + i;
  }
  const double n = blockSamples_;
  // Tone power estimate: |X|^2 * 2 / N^2 equals A^2/2 for a sine of amplitude A.
  const double pl = 2.0 * p[lo] / (n * n), ph = 2.0 * p[hi] / (n * n);
  const double total = energy_ / n;
  if (pl < 1e4 || ph < 1e4) return 0;              // each tone above about -40 dBFS
  if (pl + ph < 0.5 * total) return 0;             // tones dominate the block
  if (pl > 10 * ph || ph > 10 * pl) return 0;      // twist within +-10 dB
  for (int i = 0; i < 4; ++i) {                    // clear peak within each group
    if (i != lo && p[i] * 5 > p[lo]) return 0;
    if (4 + i != hi && p[4 + i] * 5 > p[hi]) return 0;
  }
  return kKeys[lo * 4 + (hi - 4)];
}

Status DtmfDetector::Process(const int16_t* in, size_t n, char* digits, size_t cap, size_t* nDigits) {
  *nDigits = 0;
  if (rateHz_ == 0) return Status::kInvalidArgument;
  if (n > 0 && in == nullptr) return Status::kInvalidArgument;
  size_t found = 0;
  for (size_t i = 0; i < n; ++i) {
    const float x = in[i];
    energy_ += static_cast<double>(x) * x;
    for (int k = 0; k < 8; ++k) {
      const float s0 = x + coef_[k] * s1_[k] - s2_[k];
      s2_[k] = s1_[k];
      s1_[k] = s0;
    }
    if (++count_ < blockSamples_) continue;
    const char d = Classify();
    if (d != 0 && d == last_ && d != reported_) {
      if (found < cap) digits[found++] = d;
      reported_ = d;
    }
    if (d == 0 && last_ == 0) reported_ = 0;  // key released: next press counts
    last_ = d;
    for (int k = 0; k < 8; ++k) s1_[k] = s2_[k] = 0;
    energy_ = 0;
    count_ = 0;
  }
  *nDigits = found;
  return Status::kOk;
}

}  // namespace vc

#include "vc/resampler.h"

#include <cmath>
#include <cstring>
#include <numeric>

#include "vc/simd.h"

namespace vc {

namespace {

double BesselI0(double x) {  // power series; converges fast for Kaiser betas
  double sum = 1.0, term = 1.0;
  for (int k = 1; k < 64; ++k) {
    term *= (x / (2.0 * k)) * (x / (2.0 * k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

struct Design { double passEdge, attenDb; };

Design DesignFor(ResamplerQuality q) {
  switch (q) {
    case ResamplerQuality::kLow: return {0.80, 60.0};
    case ResamplerQuality::kHigh: return {0.92, 102.0};
    default: return {0.90, 84.0};
  }
}

// Computes outputs while the newest needed input sample is buffered. Hot loop:
// one dot product of taps floats per output sample.
VC_MULTIVERSION
size_t Produce(const float* coef, int taps, int up, int stepInt, int stepFrac,
               const float* buf, size_t fill, size_t* posIo, int* phaseIo, float* out) {
  size_t pos = *posIo;
  int phase = *phaseIo;
  size_t n = 0;
  while (pos < fill) {
    const float* x = buf + pos - (taps - 1);
    const float* h = coef + static_cast<size_t>(phase) * taps;
    v8f a0 = {0}, a1 = {0};
    int j = 0;
    for (; j + 16 <= taps; j += 16) {
      a0 += LoadU8(x + j) * LoadU8(h + j);
      a1 += LoadU8(x + j + 8) * LoadU8(h + j + 8);
    }
    for (; j < taps; j += 8) a0 += LoadU8(x + j) * LoadU8(h + j);
    out[n++] = HSum8(a0 + a1);
    phase += stepFrac;
    pos += stepInt;
    if (phase >= up) { phase -= up; ++pos; }
  }
  *posIo = pos;
  *phaseIo = phase;
  return n;
}

inline int16_t ToPcm(float v) {
  // Clamp then round half away from zero; avoids a libm call per sample.
  if (v >= 32767.f) return 32767;
  if (v <= -32768.f) return -32768;
  return static_cast<int16_t>(static_cast<int>(v + (v >= 0.f ? 0.5f : -0.5f)));
}
inline float ToFloat(int16_t v) { return static_cast<float>(v); }
inline float ToFloat(float v) { return v; }
inline void Store(int16_t* o, float v) { *o = ToPcm(v); }
inline void Store(float* o, float v) { *o = v; }

}  // namespace

Status Resampler::Init(int inRateHz, int outRateHz, ResamplerQuality q) {
  if (!RateOk(inRateHz) || !RateOk(outRateHz)) return Status::kUnsupportedRate;
  int qi = static_cast<int>(q);
  if (qi < 0 || qi > 2) return Status::kInvalidArgument;
  const int g = std::gcd(inRateHz, outRateHz);
  up_ = outRateHz / g;
  down_ = inRateHz / g;
  // Bounds the coefficient table (phases x taps) for odd rate pairs.
  if (up_ > kMaxPhases || down_ > kMaxPhases) { up_ = down_ = 1; taps_ = 0; return Status::kUnsupportedRate; }
  const Design d = DesignFor(q);
  const double fsUp = static_cast<double>(inRateHz) * up_;
  const double nyq = 0.5 * std::min(inRateHz, outRateHz);
  const double pass = d.passEdge * nyq, stop = nyq;
  const double fc = 0.5 * (pass + stop) / fsUp;  // cycles per upsampled sample
  const double dw = 2.0 * M_PI * (stop - pass) / fsUp;
  const double nTotal = (d.attenDb - 7.95) / (2.285 * dw) + 1.0;
  taps_ = static_cast<int>(std::ceil(nTotal / up_));
  taps_ = (taps_ + 7) & ~7;  // SIMD width; a longer window only helps
  stepInt_ = down_ / up_;
  stepFrac_ = down_ % up_;
  if (taps_ < stepInt_ + 2) taps_ = (stepInt_ + 2 + 7) & ~7;
  const double beta = 0.1102 * (d.attenDb - 8.7);
  const int len = taps_ * up_;
  const double center = 0.5 * (len - 1);
  const double i0b = BesselI0(beta);
  std::vector<double> h(len);
  for (int t = 0; t < len; ++t) {
    const double x = t - center;
    const double r = x / (0.5 * len);
    const double w = BesselI0(beta * std::sqrt(std::max(0.0, 1.0 - r * r))) / i0b;
    const double arg = 2.0 * fc * x;
    const double sinc = (std::fabs(arg) < 1e-12) ? 1.0 : std::sin(M_PI * arg) / (M_PI * arg);
    h[t] = 2.0 * fc * sinc * w;
  }
  coef_.assign(static_cast<size_t>(len), 0.f);
  for (int p = 0; p < up_; ++p) {
    double sum = 0;
    for (int k = 0; k < taps_; ++k) sum += h[p + k * up_];
    // Each phase gets unit DC gain so a constant input stays exactly flat.
    for (int k = 0; k < taps_; ++k)
      coef_[static_cast<size_t>(p) * taps_ + (taps_ - 1 - k)] = static_cast<float>(h[p + k * up_] / sum);
  }
  buf_.assign(taps_ - 1 + kBlock, 0.f);
  Reset();
  return Status::kOk;
}

void Resampler::Reset() {
  std::fill(buf_.begin(), buf_.end(), 0.f);
  fill_ = taps_ > 0 ? taps_ - 1 : 0;
  pos_ = fill_;
  phase_ = 0;
  totalIn_ = totalOut_ = 0;
}

double Resampler::delayOutSamples() const {
  return 0.5 * (static_cast<double>(taps_) * up_ - 1) / down_;
}

size_t Resampler::OutputSamplesFor(size_t nIn) const {
  const long long in = totalIn_ + static_cast<long long>(nIn);
  const long long outs = (in * up_ + down_ - 1) / down_;  // outputs n with floor(n*down/up) < in
  return static_cast<size_t>(outs - totalOut_);
}

template <typename In, typename Out>
Status Resampler::Run(const In* in, size_t n, Out* out, size_t outCap, size_t* nOut) {
  *nOut = 0;
  if (taps_ == 0) return Status::kInvalidArgument;
  if (n > 0 && in == nullptr) return Status::kInvalidArgument;
  if (OutputSamplesFor(n) > outCap) return Status::kBufferTooSmall;
  size_t written = 0;
  float tmp[512];
  size_t done = 0;
  while (done < n) {
    size_t room = buf_.size() - fill_;
    size_t chunk = std::min(room, n - done);
    float* dst = buf_.data() + fill_;
    for (size_t i = 0; i < chunk; ++i) dst[i] = ToFloat(in[done + i]);
    done += chunk;
    // Cap the newest sample index so at most 512 outputs land in tmp per pass.
    size_t fill = fill_ + chunk;
    while (pos_ < fill) {
      size_t lim = std::min(fill, pos_ + static_cast<size_t>(512 / (up_ / down_ + 1)) * 1);
      if (lim <= pos_) lim = pos_ + 1;
      size_t k = Produce(coef_.data(), taps_, up_, stepInt_, stepFrac_, buf_.data(), lim, &pos_, &phase_, tmp);
      for (size_t i = 0; i < k; ++i) Store(out + written + i, tmp[i]);
      written += k;
    }
    fill_ = fill;
    // Keep the last taps-1 samples before pos_ as history for the next pass.
    const size_t keep = pos_ - (taps_ - 1);
    std::memmove(buf_.data(), buf_.data() + keep, (fill_ - keep) * sizeof(float));
    fill_ -= keep;
    pos_ -= keep;
  }
  totalIn_ += static_cast<long long>(n);
  totalOut_ += static_cast<long long>(written);
  *nOut = written;
  return Status::kOk;
}

Status Resampler::Process(const int16_t* in, size_t n, int16_t* out, size_t outCap, size_t* nOut) {
  return Run(in, n, out, outCap, nOut);
}
Status Resampler::ProcessFloat(const float* in, size_t n, float* out, size_t outCap, size_t* nOut) {
  return Run(in, n, out, outCap, nOut);
}

}  // namespace vc

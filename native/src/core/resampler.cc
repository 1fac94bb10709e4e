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

struct Design { double passEdge, stopEdge, attenDb; };  // edges in x lower Nyquist

Design DesignFor(ResamplerQuality q) {
  switch (q) {
    case ResamplerQuality::kLow: return {0.80, 1.0, 60.0};
    case ResamplerQuality::kHigh: return {0.92, 1.0, 102.0};
    // Alias-free passband: images/aliases of anything reaching 0-0.9 are >= 80 dB
    // down; only the 0.9-1.0 transition band may hold them. Half the taps.
    case ResamplerQuality::kFast: return {0.90, 1.10, 80.5};
    default: return {0.90, 1.0, 80.5};
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

// Small ratios (call path): "vertical" form. Outputs sharing a phase are
// evenly spaced by down input samples, so with the input split into `down`
// interleaved streams each tap becomes one broadcast coefficient times a
// contiguous vector of 8 outputs. No horizontal sums, fewer loads per MAC.
VC_MULTIVERSION
size_t ProduceVertical(const float* coef, int taps, int up, int down, const float* buf, size_t fill,
                       size_t* posIo, int* phaseIo, float* streams, size_t streamLen, float* y, float* out,
                       int16_t* pcmOut) {
  const size_t pos0 = *posIo;
  const int phase0 = *phaseIo;
  if (pos0 >= fill) return 0;
  if (down == 1) {
    streams = const_cast<float*>(buf);  // one stream: the buffer itself (padded)
  } else {
    for (int s = 0; s < down; ++s) {  // streams[s][u] = buf[s + u*down]
      float* st = streams + static_cast<size_t>(s) * streamLen;
      size_t u = 0;
      for (size_t i = s; i < fill; i += down) st[u++] = buf[i];
    }
  }
  size_t total = 0;
  for (int r = 0; r < up; ++r) {
    const long a = phase0 + static_cast<long>(r) * down;
    const int pr = static_cast<int>(a % up);
    const size_t posr = pos0 + static_cast<size_t>(a / up);
    if (posr >= fill) continue;
    const size_t count = (fill - posr + down - 1) / down;
    const float* c = coef + static_cast<size_t>(pr) * taps;
    const size_t q0 = posr - (taps - 1);
    for (size_t k0 = 0; k0 < count; k0 += 32) {
      v8f e0 = {0}, e1 = {0}, e2 = {0}, e3 = {0}, o0 = {0}, o1 = {0}, o2 = {0}, o3 = {0};
      size_t s = q0 % down, u = q0 / down + k0;
      for (int j = 0; j < taps; j += 2) {
        const float* x = streams + s * streamLen + u;
        const v8f ce = v8f{} + c[j];
        e0 += ce * LoadU8(x); e1 += ce * LoadU8(x + 8); e2 += ce * LoadU8(x + 16); e3 += ce * LoadU8(x + 24);
        if (++s == static_cast<size_t>(down)) { s = 0; ++u; }
        const float* x1 = streams + s * streamLen + u;
        const v8f co = v8f{} + c[j + 1];
        o0 += co * LoadU8(x1); o1 += co * LoadU8(x1 + 8); o2 += co * LoadU8(x1 + 16); o3 += co * LoadU8(x1 + 24);
        if (++s == static_cast<size_t>(down)) { s = 0; ++u; }
      }
      const v8f r0 = e0 + o0, r1 = e1 + o1, r2 = e2 + o2, r3 = e3 + o3;
      std::memcpy(y + k0, &r0, 32); std::memcpy(y + k0 + 8, &r1, 32);
      std::memcpy(y + k0 + 16, &r2, 32); std::memcpy(y + k0 + 24, &r3, 32);
    }
    if (pcmOut) {  // int16 output: convert while scattering (saves a pass)
      for (size_t k = 0; k < count; ++k) {
        float v = y[k];
        v = v > 32767.f ? 32767.f : (v < -32768.f ? -32768.f : v);
        pcmOut[r + k * up] = static_cast<int16_t>(static_cast<int>(v + (v >= 0.f ? 0.5f : -0.5f)));
      }
    } else {
      for (size_t k = 0; k < count; ++k) out[r + k * up] = y[k];
    }
    total += count;
  }
  const long a = phase0 + static_cast<long>(total) * down;
  *posIo = pos0 + static_cast<size_t>(a / up);
  *phaseIo = static_cast<int>(a % up);
  return total;
}

// Round-half-away and saturate a block to int16; vectorises in the v3 clone.
VC_MULTIVERSION
void ToPcmBlock(const float* in, size_t n, int16_t* out) {
  for (size_t i = 0; i < n; ++i) {
    float v = in[i];
    v = v > 32767.f ? 32767.f : v;
    v = v < -32768.f ? -32768.f : v;
    out[i] = static_cast<int16_t>(static_cast<int>(v + (v >= 0.f ? 0.5f : -0.5f)));
  }
}
void StoreBlock(const float* in, size_t n, int16_t* out) { ToPcmBlock(in, n, out); }
void StoreBlock(const float* in, size_t n, float* out) { std::memcpy(out, in, n * sizeof(float)); }
inline int16_t* AsPcm(int16_t* p) { return p; }
inline int16_t* AsPcm(float*) { return nullptr; }
inline float* AsFloat(int16_t*) { return nullptr; }
inline float* AsFloat(float* p) { return p; }

inline float ToFloat(int16_t v) { return static_cast<float>(v); }
inline float ToFloat(float v) { return v; }

}  // namespace

Status Resampler::Init(int inRateHz, int outRateHz, ResamplerQuality q) {
  if (!RateOk(inRateHz) || !RateOk(outRateHz)) return Status::kUnsupportedRate;
  int qi = static_cast<int>(q);
  if (qi < 0 || qi > 3) return Status::kInvalidArgument;
  const int g = std::gcd(inRateHz, outRateHz);
  up_ = outRateHz / g;
  down_ = inRateHz / g;
  // Bounds the coefficient table (phases x taps) for odd rate pairs.
  if (up_ > kMaxPhases || down_ > kMaxPhases) { up_ = down_ = 1; taps_ = 0; return Status::kUnsupportedRate; }
  Design d = DesignFor(q);
  // Decimation folds everything above the new Nyquist straight back into the
  // band, so it gets 5.5 dB more design margin (measured: up >= 86 dB, down >= 88 dB).
  if (inRateHz > outRateHz) d.attenDb += 5.5;
  const double fsUp = static_cast<double>(inRateHz) * up_;
  const double nyq = 0.5 * std::min(inRateHz, outRateHz);
  const double pass = d.passEdge * nyq, stop = d.stopEdge * nyq;
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
  buf_.assign(taps_ - 1 + kBlock + kPad, 0.f);
  vertical_ = up_ <= 6 && down_ <= 6;
  if (vertical_) {
    streamLen_ = buf_.size() / down_ + kPad;  // lanes read past the last output
    streams_.assign(streamLen_ * down_, 0.f);
    vy_.assign(buf_.size() / down_ + kPad, 0.f);  // one class's outputs, padded to whole groups
  }
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
    size_t room = buf_.size() - kPad - fill_;
    size_t chunk = std::min(room, n - done);
    float* dst = buf_.data() + fill_;
    for (size_t i = 0; i < chunk; ++i) dst[i] = ToFloat(in[done + i]);
    done += chunk;
    // Cap the newest sample index so at most 512 outputs land in tmp per pass.
    size_t fill = fill_ + chunk;
    if (vertical_) {
      size_t k = ProduceVertical(coef_.data(), taps_, up_, down_, buf_.data(), fill, &pos_, &phase_,
                                 streams_.data(), streamLen_, vy_.data(), AsFloat(out + written),
                                 AsPcm(out + written));
      written += k;
    }
    while (pos_ < fill) {
      size_t lim = std::min(fill, pos_ + static_cast<size_t>(512 / (up_ / down_ + 1)) * 1);
      if (lim <= pos_) lim = pos_ + 1;
      size_t k = Produce(coef_.data(), taps_, up_, stepInt_, stepFrac_, buf_.data(), lim, &pos_, &phase_, tmp);
      StoreBlock(tmp, k, out + written);
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

#include "vc/fft.h"

#include <cmath>

namespace vc {

Status RealFft::Init(int n) {
  if (n < 16 || n > 8192 || (n & (n - 1))) return Status::kInvalidArgument;
  n_ = n;
  m_ = n / 2;
  int bits = 0;
  while ((1 << bits) < m_) ++bits;
  rev_.assign(m_, 0);
  for (int i = 0; i < m_; ++i) {
    int r = 0;
    for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
    rev_[i] = r;
  }
  twRe_.resize(m_ / 2);
  twIm_.resize(m_ / 2);
  for (int k = 0; k < m_ / 2; ++k) {
    twRe_[k] = static_cast<float>(std::cos(2 * M_PI * k / m_));
    twIm_[k] = static_cast<float>(-std::sin(2 * M_PI * k / m_));
  }
  spRe_.resize(m_ + 1);
  spIm_.resize(m_ + 1);
  for (int k = 0; k <= m_; ++k) {
    spRe_[k] = static_cast<float>(std::cos(2 * M_PI * k / n_));
    spIm_[k] = static_cast<float>(-std::sin(2 * M_PI * k / n_));
  }
  re_.assign(m_, 0.f);
  im_.assign(m_, 0.f);
  return Status::kOk;
}

void RealFft::Power(const float* x, float* pow, int kMax) {
  float* re = re_.data();
  float* im = im_.data();
  // Even samples as the real part, odd as the imaginary part, in bit-reversed order.
  for (int i = 0; i < m_; ++i) {
    re[rev_[i]] = x[2 * i];
    im[rev_[i]] = x[2 * i + 1];
  }
  for (int len = 2; len <= m_; len <<= 1) {
    const int half = len / 2, step = m_ / len;
    for (int i = 0; i < m_; i += len) {
      for (int j = 0; j < half; ++j) {
        const float wr = twRe_[j * step], wi = twIm_[j * step];
        const int a = i + j, b = a + half;
        const float vr = re[b] * wr - im[b] * wi, vi = re[b] * wi + im[b] * wr;
        re[b] = re[a] - vr;
        im[b] = im[a] - vi;
        re[a] += vr;
        im[a] += vi;
      }
    }
  }
  // X[k] = E[k] + W^k O[k] with E = (Z[k] + conj Z[m-k]) / 2 and O = (Z[k] - conj Z[m-k]) / 2i.
  if (kMax > m_) kMax = m_;
  for (int k = 0; k <= kMax; ++k) {
    const int a = k % m_, b = (m_ - k) % m_;
    const float er = 0.5f * (re[a] + re[b]), ei = 0.5f * (im[a] - im[b]);
    const float orr = 0.5f * (im[a] + im[b]), oi = -0.5f * (re[a] - re[b]);
    const float xr = er + spRe_[k] * orr - spIm_[k] * oi;
    const float xi = ei + spRe_[k] * oi + spIm_[k] * orr;
    pow[k] = xr * xr + xi * xi;
  }
}

}  // namespace vc

#include "vc/waveform_lag.h"

#include <algorithm>
#include <cmath>

#include "vc/simd.h"

namespace vc {

Status WaveformLag::Init(int micRateHz, int refRateHz, int maxDelayMs) {
  if (micRateHz < kRate || refRateHz < kRate || micRateHz % 100 || refRateHz % 100 || maxDelayMs < 0) return Status::kInvalidArgument;
  micHop_ = micRateHz / 100;
  refHop_ = refRateHz / 100;
  maxLagHops_ = maxDelayMs / 10 + 1;
  refLen_ = kWindow + (maxLagHops_ + 2) * kHop;
  mic_.assign(kWindow, 0.f);
  ref_.assign(refLen_, 0.f);
  Reset();
  return Status::kOk;
}

void WaveformLag::Reset() {
  std::fill(mic_.begin(), mic_.end(), 0.f);
  std::fill(ref_.begin(), ref_.end(), 0.f);
  micHead_ = refHead_ = 0;
  micLast_ = refLast_ = 0;
}

namespace {
// Sums of F consecutive samples, kHop of them (F known at compile time vectorizes).
template <int F>
void BlockSums(const int16_t* x, float* out, int hop) {
  for (int i = 0; i < hop; ++i) {
    int s = 0;
    for (int k = 0; k < F; ++k) s += x[i * F + k];
    out[i] = static_cast<float>(s);
  }
}
}  // namespace

void WaveformLag::Decimate(const int16_t* x, int n, float* last, float* out) {
  if (!x) {
    std::fill(out, out + kHop, 0.f);
  } else if (n == 2 * kHop) {
    BlockSums<2>(x, out, kHop);
  } else if (n == 4 * kHop) {
    BlockSums<4>(x, out, kHop);
  } else if (n == 6 * kHop) {
    BlockSums<6>(x, out, kHop);
  } else if (n == 12 * kHop) {
    BlockSums<12>(x, out, kHop);
  } else {
    // Other rates (44.1 kHz): blocks of n / kHop samples, some one longer, as means.
    for (int i = 0; i < kHop; ++i) {
      const int from = i * n / kHop, to = (i + 1) * n / kHop;
      int s = 0;
      for (int k = from; k < to; ++k) s += x[k];
      out[i] = static_cast<float>(s) / static_cast<float>(to - from);
    }
  }
  // Sums, not means: the correlation is scale free.
  for (int i = 0; i < kHop; ++i) {
    const float v = out[i];
    out[i] = v - kPreEmphasis * *last;
    *last = v;
  }
}

void WaveformLag::Push(const int16_t* mic, const int16_t* ref) {
  // The rings are whole hops long, so a hop never wraps.
  Decimate(mic, micHop_, &micLast_, mic_.data() + micHead_);
  micHead_ = micHead_ + kHop == kWindow ? 0 : micHead_ + kHop;
  Decimate(ref, refHop_, &refLast_, ref_.data() + refHead_);
  refHead_ = refHead_ + kHop == refLen_ ? 0 : refHead_ + kHop;
}

namespace {
VC_MULTIVERSION
float Dot(const float* a, const float* b, int n) {
  v8f acc = {0};
  int i = 0;
  for (; i + 8 <= n; i += 8) acc += LoadU8(a + i) * LoadU8(b + i);
  float s = HSum8(acc);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}
}  // namespace

float WaveformLag::At(int lagHops, int windowMs) {
  const int w = std::max(kHop, std::min(kWindow, windowMs * kRate / 1000));
  // Linear copies of the two windows, shared by the thread's channels.
  thread_local std::vector<float> micWin(kWindow), refWin(kWindow + 2 * kHop);
  lagHops = std::max(0, std::min(lagHops, maxLagHops_));
  // The mic's newest w samples, oldest first (micHead_ is the ring's oldest; only w are copied:
  // the double-talk test asks for 40 ms on many hops).
  const int start = (micHead_ + kWindow - w) % kWindow;
  const int firstPart = std::min(w, kWindow - start);
  std::copy(mic_.begin() + start, mic_.begin() + start + firstPart, micWin.begin());
  std::copy(mic_.begin(), mic_.begin() + (w - firstPart), micWin.begin() + firstPart);
  const float* mw = micWin.data();
  const float mm = Dot(mw, mw, w);
  if (mm <= 0) return 0;
  // The reference from (lag + 1 hop + window) to (lag - 1 hop) samples ago, oldest first: at
  // offset j it lines the mic window up with the reference (lag + 1 hop - j) samples earlier.
  const int lo = std::max(0, lagHops - 1) * kHop, hi = (lagHops + 1) * kHop;
  const int span = w + hi - lo;
  const int from = (refHead_ - hi - w + 2 * refLen_) % refLen_;
  const int first = std::min(span, refLen_ - from);
  std::copy(ref_.begin() + from, ref_.begin() + from + first, refWin.begin());
  std::copy(ref_.begin(), ref_.begin() + (span - first), refWin.begin() + first);
  float rr = Dot(refWin.data(), refWin.data(), w);
  float best = 0;
  for (int j = 0;; ++j) {
    if (rr > 0) best = std::max(best, std::abs(Dot(mw, refWin.data() + j, w)) / std::sqrt(mm * rr));
    if (j == hi - lo) break;
    rr += refWin[j + w] * refWin[j + w] - refWin[j] * refWin[j];  // slide the window's energy
  }
  return best;
}

}  // namespace vc

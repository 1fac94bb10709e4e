#include "vc/echo_canceller.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "vc/simd.h"

namespace vc {

namespace {
// The filter starts a hop (10 ms) before the tracked delay: the tracker finds the delay to a hop.
constexpr float kMu = 0.5f;  // NLMS step (of the normalised gradient)
// Regularisation per tap: a reference under about -60 dBFS teaches the filter nothing.
constexpr float kDeltaPerTap = 1000.f;
constexpr int kSnapHops = 5;  // hops between snapshots of the filter while the caller is silent
constexpr int kBlock = 4;     // samples per filter pass and update (hops are multiples of it)
// Double talk (see Watch): a hop leaving 9 dB more than the filter has been leaving; kept for
// 0.5 s it is the path's new level instead. That level rises a tenth of the way, falls 0.3.
constexpr float kDtRise = 8.f;
constexpr int kDtEscapeHops = 50;
constexpr float kLeftUp = 0.1f, kLeftDown = 0.3f;
}  // namespace

Status EchoCanceller::Init(int rateHz, int hopSamples, int maxDelaySamples, int tapsMs) {
  if (rateHz <= 0 || hopSamples <= 0 || hopSamples % kBlock || maxDelaySamples < 0 || tapsMs <= 0)
    return Status::kInvalidArgument;
  hop_ = hopSamples;
  taps_ = (rateHz * tapsMs / 1000 + 7) / 8 * 8;  // whole SIMD lanes
  pre_ = hopSamples;
  int size = 1;
  while (size < maxDelaySamples + taps_ + 2 * hop_) size <<= 1;
  ring_.assign(size, 0);
  mask_ = size - 1;
  h_.assign(taps_, 0.f);
  safe_ = recent_ = h_;
  for (Slot& s : slots_) s.h = h_;
  x_.assign(taps_ + hop_ + kBlock, 0.f);
  Reset();
  return Status::kOk;
}

void EchoCanceller::Reset() {
  std::fill(ring_.begin(), ring_.end(), 0);
  std::fill(h_.begin(), h_.end(), 0.f);
  safe_ = recent_ = h_;
  for (Slot& s : slots_) { s.start = -1; s.used = 0; }
  moves_ = 0;
  written_ = 0;
  start_ = -1;
  leftLevel_ = -1;
  doubleTalk_ = false;
  dtHops_ = 0;
  quietHops_ = 0;
  wasQuiet_ = true;
}

void EchoCanceller::PushReference(const int16_t* ref) {
  for (int i = 0; i < hop_; ++i) ring_[(written_ + i) & mask_] = ref ? ref[i] : 0;
  written_ += hop_;
}

// The window moves: the filter learned here is kept, and one learned where the window now goes
// comes back. The tracker's delay leaves the echo's for a while when a caller speaks (their voice
// matched at another lag; a live call: 31 hops most of the time, 42-61 during each cut-in and up
// to the next answer) and comes back; following it threw the learned filter away each time.
void EchoCanceller::Move(int start) {
  Slot* keep = nullptr;
  for (Slot& s : slots_) {
    if (s.start == start_) { keep = &s; break; }
    if (!keep || s.used < keep->used) keep = &s;  // the least recently used
  }
  keep->start = start_;
  keep->used = ++moves_;
  keep->h = h_;
  for (Slot& s : slots_) {
    if (s.start >= 0 && s.start != start_ && std::abs(s.start - start) <= hop_) {
      h_ = s.h;
      safe_ = recent_ = h_;
      start_ = s.start;
      return;
    }
  }
  Shift(start - start_);
  start_ = start;
}

void EchoCanceller::Shift(int by) {
  // Lag L sat at index taps-1-(L-start): a later start moves every lag up by `by`.
  for (std::vector<float>* v : {&h_, &safe_, &recent_}) {
    float* h = v->data();
    if (by >= taps_ || -by >= taps_) { std::fill(v->begin(), v->end(), 0.f); continue; }
    if (by > 0) {
      std::memmove(h + by, h, (taps_ - by) * sizeof(float));
      std::fill(h, h + by, 0.f);
    } else if (by < 0) {
      std::memmove(h, h - by, (taps_ + by) * sizeof(float));
      std::fill(h + taps_ + by, h + taps_, 0.f);
    }
  }
}

VC_MULTIVERSION
void EchoCanceller::ProcessHop(const int16_t* mic, int delaySamples, bool adapt, int16_t* out) {
  int start = std::max(0, delaySamples - pre_);
  // The tracker's delay wobbles by a hop where the echo straddles two; the window covers both.
  if (start_ >= 0 && std::abs(start - start_) <= hop_) start = start_;
  if (start_ < 0) start_ = start;
  else if (start != start_) Move(start);
  start = start_;
  // The hop's first mic sample is the same instant as the last pushed hop's first reference
  // sample; x_[j] is reference sample now - start - taps + 1 + j (0 before the first or beyond
  // the ring).
  const int64_t now = written_ - hop_;
  const int64_t base = now - start - taps_ + 1;
  const int64_t oldest = std::max<int64_t>(0, written_ - static_cast<int64_t>(ring_.size()));
  const int n = taps_ + hop_ - 1;
  for (int j = 0; j < n; ++j) {
    const int64_t i = base + j;
    x_[j] = i >= oldest && i < written_ ? ring_[i & mask_] : 0.f;
  }
  float* h = h_.data();
  const float delta = kDeltaPerTap * taps_;
  float power = 0;
  for (int j = 0; j < taps_; ++j) power += x_[j] * x_[j];
  adapt = adapt && !doubleTalk_;
  double leftE = 0, refE = 0;
  // Four samples at a time against the same taps (block NLMS): one pass over the taps serves four
  // outputs and one update, which per sample took four times the memory traffic and a single
  // dependency chain.
  for (int t = 0; t < hop_; t += kBlock) {
    const float* x = x_.data() + t;
    v8f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    for (int j = 0; j < taps_; j += 8) {
      const v8f hv = LoadU8(h + j);
      a0 += hv * LoadU8(x + j);
      a1 += hv * LoadU8(x + j + 1);
      a2 += hv * LoadU8(x + j + 2);
      a3 += hv * LoadU8(x + j + 3);
    }
    const float y[kBlock] = {HSum8(a0), HSum8(a1), HSum8(a2), HSum8(a3)};
    float g[kBlock];
    for (int k = 0; k < kBlock; ++k) {
      const float e = static_cast<float>(mic[t + k]) - y[k];
      out[t + k] = static_cast<int16_t>(std::lrint(std::min(32767.f, std::max(-32768.f, e))));
      leftE += static_cast<double>(e) * e;
      refE += power;
      g[k] = adapt && power > delta ? kMu / kBlock * e / (power + delta) : 0.f;
      power = std::max(0.f, power + x[k + taps_] * x[k + taps_] - x[k] * x[k]);
    }
    if (g[0] != 0.f || g[1] != 0.f || g[2] != 0.f || g[3] != 0.f) {
      const v8f g0 = v8f{} + g[0], g1 = v8f{} + g[1], g2 = v8f{} + g[2], g3 = v8f{} + g[3];
      for (int j = 0; j < taps_; j += 8) {
        const v8f v = LoadU8(h + j) + g0 * LoadU8(x + j) + g1 * LoadU8(x + j + 1) + g2 * LoadU8(x + j + 2) +
                      g3 * LoadU8(x + j + 3);
        std::memcpy(h + j, &v, sizeof v);
      }
    }
  }
  Watch(static_cast<float>(leftE / std::max(refE / taps_, 1.0)));
}

// What the filter leaves per unit of reference power, hop by hop. A hop far over what it has been
// leaving is a voice the filter does not know (double talk): the next hop does not learn, nor do
// the snapshots take it. Without this a caller the detector had not recognised yet taught the
// filter their voice and it lost the path (replays: 30 dB taken to 0-5 dB during each cut-in).
void EchoCanceller::Watch(float left) {
  if (leftLevel_ < 0) leftLevel_ = left;
  doubleTalk_ = left > kDtRise * leftLevel_ + 1e-3f;
  dtHops_ = doubleTalk_ ? dtHops_ + 1 : 0;
  if (dtHops_ >= kDtEscapeHops) { leftLevel_ = left; doubleTalk_ = false; dtHops_ = 0; }
  else if (!doubleTalk_) leftLevel_ += (left > leftLevel_ ? kLeftUp : kLeftDown) * (left - leftLevel_);
}

// A caller recognised: the filter goes back to a snapshot 5-10 hops old, from before what the
// caller's first hops taught it.
void EchoCanceller::Judged(bool callerQuiet) {
  callerQuiet = callerQuiet && !doubleTalk_;
  if (!callerQuiet) {
    if (wasQuiet_) h_ = recent_ = safe_;
    quietHops_ = 0;
  } else if (++quietHops_ >= kSnapHops) {
    safe_ = recent_;
    recent_ = h_;
    quietHops_ = 0;
  }
  wasQuiet_ = callerQuiet;
}

}  // namespace vc

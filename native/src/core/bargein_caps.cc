// The echo bound before a delay is trusted: per-lag caps on the echo gain, the lags an utterance
// reaches only after the caller started, and the mic activity that decides them.
#include "vc/bargein.h"
#include "vc/simd.h"

#include <cstring>

#include "bargein_tuning.h"

namespace vc {

using namespace bargein;

// Per-lag caps on the echo gain, learned while the caller is quiet. A cap decays fast
// (-3 dB per 20 ms) where its lag's reference was loud and the mic stayed well under its
// bound: a lag that carries no echo stops masking the caller within a few hundred ms, while
// the shared gain falls 0.3 dB per hop at best. A lag
// is only learned once its own reference was loud, so an echo arriving late still meets the
// initial gain. A cap rises slowly (+0.17 dB per 20 ms) towards the least gain that explains the
// mic whatever the delay (its ratio against the loudest reference): that energy is usually a
// caller, who must not teach the bound to hide them. It rose 0.36 of the way per 20 ms while
// the mic was under the bound, so a caller masked early in a call taught every lag their own
// level (the sweep's fresh calls, with kLateActiveHops, 16 / 8 kHz p95 380 / 380 ms -> 300 / 300).
VC_MULTIVERSION
void BargeInDetector::LearnCaps(const float* mic, const float* micFloor, const float* maxRef,
                                int newest, bool quiet) {
  // Per band first; the lag loop below is branch-free (masks as floats) so it vectorizes.
  float heard[kBands], least[kBands], loud[kBands], learn[kBands];
  for (int b = 0; b < kBands; ++b) {
    loud[b] = 30.f * micFloor[b];
    learn[b] = maxRef[b] >= loud[b] ? 1.f : 0.f;  // else the reference is too weak here
    heard[b] = std::max(0.f, mic[b] - std::max(micFloor[b], high_[b]));  // over the line's spread, as erl_
    least[b] = learn[b] != 0.f ? heard[b] / maxRef[b] : 0.f;
  }
  for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1) {
    const float* r = ring_[row];
    float* c = cap_[k];
    for (int b = 0; b < kBands; ++b) {
      const float cv = c[b];
      const float up = std::min(least[b], cv * kErlCreep * kErlCreep);
      const bool decay = (r[b] >= loud[b]) & (heard[b] < 0.5f * cv * r[b]);
      const float down = decay ? cv * kCapDecay : cv;
      const float v = std::min(kErlMax, std::max(kErlMin, least[b] > cv ? up : down));
      c[b] = learn[b] != 0.f && (quiet || v < cv) ? v : cv;
    }
  }
}

// See kLateActiveHops.
void BargeInDetector::MarkLateLags(int newest) {
  if (inactiveHops_ >= kLateClearHops) std::memset(late_, 0, sizeof late_);
  const bool busy = activeHops_ >= kLateActiveHops && activityMasked_;
  for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1)
    if (onsetRow_[row]) late_[k] = busy;
}

void BargeInDetector::FollowActivity(bool active) {
  activeHops_ = active ? activeHops_ + 1 : 0;
  inactiveHops_ = active ? 0 : inactiveHops_ + 1;
  if (activeHops_ == 1) activityMasked_ = true;
  // Over the bound from its first hops while the window holds the agent's speech: a loud echo
  // may be what began (with no speech in the window, nothing on the line can be its echo).
  if (active && activeHops_ <= kMaskedOnsetHops && excess_ >= kEvidenceExcess && pauseRows_ < hist_) activityMasked_ = false;
}

}  // namespace vc

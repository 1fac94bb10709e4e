// Bursts on the line (door slams, clatter) and what follows them: hops that do not count as
// the caller's evidence however far over the bound they are.
#include "vc/bargein.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bargein_tuning.h"

namespace vc {

using namespace bargein;

// Whether this hop is the tail of a burst (see kBurstExcess): 12 dB under the loudest hop of the
// last 100 ms that was far over the bound; under a voice that rose into that hop (see
// kBurstRampLog2), only where the level dropped 12 dB since the last hop (the voice cut off).
bool BargeInDetector::BurstTail() {
  if (excess_ >= kEvidenceExcess) {
    if (loud_.hops == 0) loud_ = LoudRun{micLog_, micLog_, 0, 0};
    if (loud_.hops < kCreditRampHops) loud_.earlyLog = std::max(loud_.earlyLog, micLog_);
    if (micLog_ > loud_.peakLog) { loud_.peakLog = micLog_; loud_.peakAt = loud_.hops; }
    ++loud_.hops;
  } else {
    loud_.hops = 0;
  }
  const bool ramped = loud_.hops > 0 && loud_.peakAt >= kCreditRampHops && loud_.peakLog - loud_.earlyLog >= kBurstRampLog2;
  const bool burst = excess_ >= kBurstExcess;
  const bool onset = micLog_ - burstDipLog_ >= kBurstRiseLog2;
  if (onset)
    for (float& v : burstLog_) v = kNoBurst;
  burstLog_[burstHead_] = burst ? micLog_ : kNoBurst;
  burstRamped_[burstHead_] = false;
  if (ramped)  // the run's hops so far, this one included, rose into a voice
    for (int k = 0; k < std::min(loud_.hops, kBurstHops); ++k) burstRamped_[(burstHead_ - k + kBurstHops) % kBurstHops] = true;
  burstHead_ = (burstHead_ + 1) % kBurstHops;
  burstDipLog_ = burst || onset ? micLog_ : std::min(burstDipLog_, micLog_);
  float top = kNoBurst;
  bool voice = false;
  for (int k = 0; k < kBurstHops; ++k)
    if (burstLog_[k] > top) { top = burstLog_[k]; voice = burstRamped_[k]; }
  return micLog_ < top - kBurstFallLog2 && (!voice || micDropLog_ >= kBurstVoiceDropLog2);
}

namespace {
// A hop's band shape: its log2 band energies less their mean.
void BandShape(const float* bands, float* shape) {
  float mean = 0;
  for (int b = 0; b < kBands; ++b) mean += shape[b] = std::log2(bands[b] + 1.f);
  mean /= kBands;
  for (int b = 0; b < kBands; ++b) shape[b] -= mean;
}

// How alike two band shapes are (their correlation, -1 to 1).
float ShapeLikeness(const float* a, const float* b) {
  float ab = 0, aa = 0, bb = 0;
  for (int k = 0; k < kBands; ++k) { ab += a[k] * b[k]; aa += a[k] * a[k]; bb += b[k] * b[k]; }
  return ab / std::sqrt(std::max(aa * bb, 1e-12f));
}
}  // namespace

// Whether this candidate evidence hop lies in a stretch that began at its loudest and sits 2.1 dB
// or more under that peak (see kOnsetFallLog2): a slam's decay and the steady sound it leads into;
// in a new line's first second, a struck note's too (see kNewLineHops); or, in a stretch loudest
// within its first three hops, under a peak whose band shape it has kept for kSteadyHops (a struck
// chord's decay, see kSteadyShapeCorr and kSteadyPeakHops); or after
// kToneHops hops that each kept the last one's level and band shape (a held note); or a near-bar
// hop (`nearBar`, see kNearBarHeldCorr) that kept the last hop's band shape. Called once per hop;
// `bands` are the hop's band energies.
bool BargeInDetector::UnderLoudOnset(bool candidate, bool energy, const float* bands, bool nearBar) {
  Stretch& s = stretch_;
  const float echoShare = hopBound_ / std::max(hopHeard_, 1e-6f);
  bool steadyDecay = false, tone = false, heldNearBar = false;
  if (s.since <= kStretchGapHops) s.dipLog = std::min(s.dipLog, micLog_);
  if (candidate) {
    float shape[kBands];
    BandShape(bands, shape);
    if (s.since > kStretchGapHops) {
      s = Stretch{};
      s.peakLog = s.dipLog = micLog_;
      s.peakEcho = echoShare;
      s.peakEnergy = energy;
      std::memcpy(s.shape, shape, sizeof shape);
    } else {
      ++s.hops;
      if (micLog_ > s.peakLog) {
        s.peakLog = s.dipLog = micLog_;
        s.peakEcho = echoShare;
        s.peakAt = s.hops;
        s.peakEnergy = energy;
        std::memcpy(s.shape, shape, sizeof shape);
      } else {
        s.steady = s.steady && ShapeLikeness(shape, s.shape) >= kSteadyShapeCorr;
        steadyDecay = s.steady && s.hops - s.peakAt > kSteadyHops && s.peakLog - micLog_ >= kSteadyFallLog2;
      }
    }
    // A held note: this hop kept the last one's level and band shape (see kToneHops).
    const float likeLast = ShapeLikeness(shape, s.lastShape);
    const bool held = s.since <= 1 && std::fabs(micLog_ - s.lastLog) <= kToneStepLog2 && likeLast >= kToneShapeCorr;
    heldNearBar = nearBar && s.since <= 1 && likeLast >= kNearBarHeldCorr;
    s.heldHops = held ? s.heldHops + 1 : 0;
    s.lastLog = micLog_;
    std::memcpy(s.lastShape, shape, sizeof shape);
    tone = s.heldHops >= kToneHops;
    s.since = 0;
    // A hop 6 dB over the lowest since the peak is a new onset, as for a burst's tail (the
    // syllable after a stop): the stretch is not a burst's.
    s.rose = s.rose || micLog_ - s.dipLog >= kBurstRiseLog2;
  }
  if (s.since <= kStretchGapHops) ++s.since;
  if (tone || heldNearBar) return true;
  if (!candidate || s.rose) return false;
  if (steadyDecay && s.peakAt <= kSteadyPeakHops) return true;
  if (s.peakAt > kOnsetPeakHops) return false;
  const bool newLine = caller_.hops() < kNewLineHops && !echoSeen_ && !s.peakEnergy;
  return s.peakEcho < (newLine ? kNewLineEchoShare : kOnsetEchoShare) && s.peakLog - micLog_ >= kOnsetFallLog2;
}

}  // namespace vc

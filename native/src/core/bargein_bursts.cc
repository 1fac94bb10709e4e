// Bursts on the line (door slams, clatter) and what follows them: hops that do not count as
// the caller's evidence however far over the bound they are.
#include "vc/bargein.h"

#include <algorithm>

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

// Whether this candidate evidence hop lies in a stretch that began at its loudest and sits 2.1 dB
// or more under that peak (see kOnsetFallLog2): a slam's decay and the steady sound it leads into;
// in a new line's first second, a struck note's too (see kNewLineHops). Called once per hop.
bool BargeInDetector::UnderLoudOnset(bool candidate, bool energy) {
  Stretch& s = stretch_;
  const float echoShare = hopBound_ / std::max(hopHeard_, 1e-6f);
  if (s.since <= kStretchGapHops) s.dipLog = std::min(s.dipLog, micLog_);
  if (candidate) {
    if (s.since > kStretchGapHops) {
      s = Stretch{micLog_, micLog_, echoShare, 0, 0, 0, false, energy};
    } else {
      ++s.hops;
      if (micLog_ > s.peakLog) {
        s.peakLog = s.dipLog = micLog_;
        s.peakEcho = echoShare;
        s.peakAt = s.hops;
        s.peakEnergy = energy;
      }
    }
    s.since = 0;
    // A hop 6 dB over the lowest since the peak is a new onset, as for a burst's tail (the
    // syllable after a stop): the stretch is not a burst's.
    s.rose = s.rose || micLog_ - s.dipLog >= kBurstRiseLog2;
  }
  if (s.since <= kStretchGapHops) ++s.since;
  const bool newLine = caller_.hops() < kNewLineHops && !echoSeen_ && !s.peakEnergy;
  return candidate && !s.rose && s.peakAt <= kOnsetPeakHops && s.peakEcho < (newLine ? kNewLineEchoShare : kOnsetEchoShare) &&
         s.peakLog - micLog_ >= kOnsetFallLog2;
}

}  // namespace vc

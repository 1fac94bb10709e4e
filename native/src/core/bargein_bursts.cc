// Bursts on the line (door slams, clatter): hops that do not count as the caller's evidence
// however far over the bound they are.
#include "vc/bargein.h"

#include <algorithm>

#include "bargein_tuning.h"

namespace vc {

using namespace bargein;

// Whether this hop is the tail of a burst (see kBurstExcess): 12 dB under the loudest hop of the
// last 100 ms that was far over the bound.
bool BargeInDetector::BurstTail() {
  const bool burst = excess_ >= kBurstExcess;
  const bool onset = micLog_ - burstDipLog_ >= kBurstRiseLog2;
  if (onset)
    for (float& v : burstLog_) v = kNoBurst;
  burstLog_[burstHead_] = burst ? micLog_ : kNoBurst;
  burstHead_ = (burstHead_ + 1) % kBurstHops;
  burstDipLog_ = burst || onset ? micLog_ : std::min(burstDipLog_, micLog_);
  float top = kNoBurst;
  for (float v : burstLog_) top = std::max(top, v);
  return micLog_ < top - kBurstFallLog2;
}

}  // namespace vc

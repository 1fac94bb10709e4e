// The barge-in detector's echo canceller stage: the sample-domain canceller (EchoCanceller) placed
// at the delay the detector's band tracker found, the band powers of what it leaves, and its
// credit: how much of the echo it is known to take, which the detector may then take off its
// echo bound for the caller. Mic and reference are in step; a reference at another rate is
// resampled to the mic's first (a browser plays 24 kHz while its mic is taken at 16 kHz).
#pragma once
#include <cstdint>
#include <vector>

#include "vc/echo_canceller.h"
#include "vc/resampler.h"
#include "vc/status.h"
#include "vc/vad.h"

namespace vc {

class EchoCancelStage {
 public:
  Status Init(int micRateHz, int refRateHz, int maxDelayMs, int tapsMs);
  void Reset();
  // One 10 ms hop. ref: that hop's reference at its own rate (null: silence), kept whatever else
  // happens.
  // delayHops: the tracker's delay (-1: none); agent: the reference played lately; audible: an
  // echo the mic can hear may be on the line; fired: the detector has raised an interruption
  // (the filter must not learn the caller). Cancels the hop when all allow it, writes into left
  // the band powers of what it left, never more than micBands per band, and returns true.
  bool Hop(const int16_t* mic, const int16_t* ref, const float* micBands, int delayHops, bool agent,
           bool audible, bool fired, float* left);
  // The hop Hop() ran on may be judged on `left` against the echo bound times credit() (see the
  // .cc); the echo expected per band is echoGain times echoRef (the reference at the delay).
  bool Credited(const float* micBands, const float* left, const float* echoGain, const float* echoRef) const;
  // The credit learns from a hop Hop() ran on where the caller was judged silent, in the bands
  // where the reference at the delay (echoRef) was loud and the mic heard it.
  void LearnCredit(bool quiet, const float* micBands, const float* left, const float* echoRef,
                   const float* micFloor);
  // After every hop was judged (quiet: the caller's probability under 0.3).
  void Judged(bool quiet);
  // Per band: the share of the echo the canceller leaves (1: none taken, or not yet shown).
  const float* credit() const { return credit_; }

 private:
  void FollowDelay(int delayHops, bool agent);
  const int16_t* AtMicRate(const int16_t* ref);
  EchoCanceller aec_;
  bool resample_ = false;
  Resampler toMic_;               // the reference to the mic's rate, when they differ
  int refHop_ = 0;
  std::vector<int16_t> silence_;  // one reference hop
  std::vector<int16_t> carry_;    // resampled reference not yet used (a hop's worth, give or take)
  std::vector<int16_t> refAtMic_;  // the hop handed to the canceller
  BandAnalyzer bands_;  // of what the canceller leaves
  int hop_ = 0;
  int lag_ = -1;        // the delay (hops) the canceller works at
  int moveHops_ = 0;    // hops the tracked delay has sat elsewhere while the caller was silent
  bool quiet_ = true;   // the last hop's verdict
  bool ran_ = false;    // Hop() cancelled the last hop
  void MoveCredit(int start);
  float credit_[kBands];
  int creditStart_ = -1;  // the canceller window credit_ was learned at
  struct CreditSlot {
    int start = -2;
    long used = 0;
    float credit[kBands];
  };
  CreditSlot slots_[3];   // credit learned at other windows (as the canceller keeps its taps)
  long moves_ = 0;
};

}  // namespace vc

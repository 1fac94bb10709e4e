// Sample-domain echo canceller for the barge-in detector: an NLMS filter over a short window of
// the reference placed at the echo delay the detector's band tracker found. The barge-in
// detector's band bound alone cannot hear a caller within a few dB of the echo; what is left
// after a linear path (delay, gain, band-pass, a mu-law round trip) is 30+ dB under the echo.
// Mic and reference are at one rate and in step (sample i of each is the same instant).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vc/status.h"

namespace vc {

class EchoCanceller {
 public:
  // maxDelaySamples: the longest delay ever passed to ProcessHop; hopSamples per call; tapsMs:
  // the filter's length (32 covers a delay known to a hop and a handset's ring).
  Status Init(int rateHz, int hopSamples, int maxDelaySamples, int tapsMs);
  void Reset();
  // The reference of the next hop (null: silence). Call before ProcessHop of that hop.
  void PushReference(const int16_t* ref);
  // Cancels the echo from one hop of mic into out. delaySamples: where the echo sits (the
  // filter covers from a hop before it to tapsMs - 10 ms after); a change of more than a hop
  // shifts the filter with it.
  // adapt: the caller was judged silent, the filter may learn.
  void ProcessHop(const int16_t* mic, int delaySamples, bool adapt, int16_t* out);
  // After the hop was judged: a caller heard undoes what the filter learned in the last few
  // hops (the onset's first hops were learned before the caller was recognised).
  void Judged(bool callerQuiet);
  // The last hop left far more than the filter has been leaving: another voice (see Watch).
  bool doubleTalk() const { return doubleTalk_; }
  // Where the filter window starts (samples of delay), -1 before the first hop.
  int start() const { return start_; }

 private:
  void Move(int start);
  void Shift(int by);
  struct Slot {
    int start = -1;            // window start the taps were learned at
    long used = 0;             // when the window last left it
    std::vector<float> h;
  };
  Slot slots_[3];              // filters learned at other delays (see Move)
  long moves_ = 0;
  void Watch(float left);
  int hop_ = 0, taps_ = 0, pre_ = 0, mask_ = 0;
  std::vector<int16_t> ring_;  // mic-rate reference, power-of-two ring
  int64_t written_ = 0;        // reference samples pushed
  int start_ = -1;             // filter's first lag (samples) last hop; -1: not placed yet
  std::vector<float> h_;       // taps, reversed (h_[taps_ - 1 - k] weighs lag start_ + k)
  std::vector<float> safe_, recent_;  // snapshots of h_ taken while the caller was silent
  std::vector<float> x_;       // the hop's reference window as floats
  float leftLevel_ = -1;  // what the filter leaves per unit of reference power, smoothed
  bool doubleTalk_ = false;
  int dtHops_ = 0;
  int quietHops_ = 0;
  bool wasQuiet_ = true;
};

}  // namespace vc

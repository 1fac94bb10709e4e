// The line beyond the echo: its loud-moment levels (the 90th percentile and the bar they make),
// and their restarts.
#include "vc/bargein.h"

#include <cmath>
#include <cstring>

#include "bargein_tuning.h"

namespace vc {

using namespace bargein;

namespace {
// The sum of a level over the bands (a restarted level's total starts from it).
float Total(const float* level) {
  float sum = 0;
  for (int b = 0; b < kBands; ++b) sum += level[b];
  return sum;
}
}  // namespace

void BargeInDetector::LearnHigh(const float* mic, const float* sel) {
  const bool fast = highHops_ < kHighFastHops;  // see kHighFastHops
  if (fast) ++highHops_;
  const float up = fast ? kHighUp : kHighSlowUp, down = fast ? kHighDown : kHighSlowDown;
  float total = 0;
  for (int b = 0; b < kBands; ++b) {
    const float x = std::max(0.f, mic[b] - dtGain_[b] * sel[b]);
    float& q = high_[b];
    q = q == 0.f ? x : x > q ? q * up : q * down;
    total += x;
  }
  highTotal_ = highTotal_ == 0.f ? total : total > highTotal_ ? highTotal_ * up : highTotal_ * down;
}

// What evidence must clear beyond the echo bound: the line's peaks and kHighOver times its 90th
// percentile, per band, summed. Each level's bands keep their shape but are scaled down to that
// level of the line's total: per band, a steady noise's 10 ms hops spread several dB over their
// mean, and summing the bands' own 90th percentiles and peaks asked a caller for more than the
// line ever shows as a whole (on white noise they are independent; music's beats and a crowd's
// loud moments lift all bands together, and there the two sums are close). Taped live calls
// (bench/turns/tape-eval.ts), tuning half, web / carrier: cut-ins over 150 ms 14 / 24 -> 13 / 22,
// over 400 ms 4 / 5 -> 3 / 4, misses 1 / 1 -> 1 / 0, false interruptions the same (6 / 2).
float BargeInDetector::LoudLineBar() const {
  float peaks = 0, highs = 0;
  for (int b = 0; b < kBands; ++b) { peaks += peak_[b]; highs += high_[b]; }
  const float peakScale = peaks > 0 ? std::min(1.f, peakTotal_ / peaks) : 1.f;
  const float highScale = highs > 0 ? kHighOver * std::min(1.f, highTotal_ / highs) : kHighOver;
  float bar = 0;
  for (int b = 0; b < kBands; ++b) bar += std::max(peakScale * peak_[b], highScale * high_[b]);
  return bar;
}

bool BargeInDetector::RestartLevel(const float* x, float* level, FarRun& run) {
  float line = 0, bar = 0;
  for (int b = 0; b < kBands; ++b) { line += x[b]; bar += level[b]; }
  if (kLevelFar * line >= bar) {
    run.hops = 0;
    return false;
  }
  for (int b = 0; b < kBands; ++b) run.max[b] = run.hops == 0 ? x[b] : std::max(run.max[b], x[b]);
  if (++run.hops < kLevelFarHops) return false;
  std::memcpy(level, run.max, sizeof run.max);
  run.hops = 0;
  return true;
}

void BargeInDetector::RestartLevels(const float* mic, const float* sel) {
  float x[kBands];
  for (int b = 0; b < kBands; ++b) x[b] = std::max(0.f, mic[b] - dtGain_[b] * sel[b]);  // the line beyond the echo
  if (RestartLevel(x, high_, highFar_)) highTotal_ = Total(high_);
  // The peaks also learn the echo's residual while the agent speaks, and carried it on, masking
  // callers late in the call; they restart in the agent's pauses (replayed calls, held-out, misses
  // web 11 -> 5, carrier 13 -> 9; sweeps, over echo paths that jump: false interruptions 9 -> 13 /
  // 10 -> 15). While the agent speaks they restart only if learned over a floor that has since
  // fallen 15 dB (restarting them then too: over echo, caller silent, 8 -> 19).
  if (refActiveHops_ == 0 || kLevelFar * FloorSum() < peakFloor_) {
    if (RestartLevel(x, peak_, peakFar_)) peakTotal_ = Total(peak_);
  } else {
    peakFar_.hops = 0;
  }
}

float BargeInDetector::FloorSum() const {
  const float* fl = caller_.floor();
  float sum = 0;
  for (int b = 0; b < kBands; ++b) sum += fl[b];
  return sum;
}

}  // namespace vc

// The double-talk tests: per band against the predicted echo (which also teaches the line's peaks),
// and on the waveform (whether the mic follows the reference where the echo may be).
#include "vc/bargein.h"

#include <cmath>
#include <cstdlib>

#include "bargein_tuning.h"

namespace vc {

using namespace bargein;

// Per-band residual double-talk test. dtGain_ follows mic/ref per band at the tracked delay (the
// window's loudest reference before one is trusted) while the caller is judged silent: down at
// once, up at once only when the mic has the reference's shape (echo survives clipping, mu-law and
// band limits with its shape; a caller over it does not), slowly otherwise.
bool BargeInDetector::DoubleTalk(const float* mic, const float* micFloor, const float* sel,
                                 float echoCorr, bool quiet) {
  const float* fl = caller_.floor();
  const float* bg = caller_.background();
  int over = 0;
  for (int b = 0; b < kBands; ++b) {
    const float noise = std::max(std::max(fl[b], bg[b]), std::max(peak_[b], high_[b]));
    const float pred = dtGain_[b] * sel[b];
    over += mic[b] - pred - noise >= kDtOver * std::max(noise, pred) ? 1 : 0;
  }
  const bool hit = over >= kDtBands && echoCorr < 1.f;
  dtHops_ = hit ? dtHops_ + 1 : 0;
  if (quiet && dtHops_ == 0 && over < kPeakOver) {
    // Only hops with no band over teach the peaks and the gains: a masked caller's onset trips
    // bands first. The peaks: what the line carries beyond the echo (music notes, a crowd's loud
    // moments), rising 0.3 of the way per hop, falling 0.9 dB per second.
    const bool echoMoving = echoSeen_ && refActiveHops_ > 0 && agentRunHops_ < kPeakUtteranceStartHops;
    const float rise = caller_.hops() < kPeakWarmUpHops ? 0.f : echoMoving ? kPeakRiseUtteranceStart : kPeakRise;  // see kPeakWarmUpHops, kPeakRiseUtteranceStart
    bool rose = false;
    float total = 0;
    for (int b = 0; b < kBands; ++b) {
      const float x = std::max(0.f, mic[b] - dtGain_[b] * sel[b]);
      rose = rose || (rise > 0.f && x > peak_[b]);
      peak_[b] = x > peak_[b] ? peak_[b] + rise * (x - peak_[b]) : peak_[b] * kPeakDecay;
      total += x;
    }
    peakTotal_ = total > peakTotal_ ? peakTotal_ + rise * (total - peakTotal_) : peakTotal_ * kPeakDecay;
    if (rose) peakFloor_ = FloorSum();
    const float mu = echoCorr >= 1.f ? kDtMu : kDtMuSlow;
    for (int b = 0; b < kBands; ++b) {
      if (sel[b] < 30.f * micFloor[b]) continue;
      const float r = std::max(0.f, mic[b] - micFloor[b]) / sel[b];
      float& g = dtGain_[b];
      g += (r < g ? kDtMu : mu) * (r - g);
      g = std::min(kErlMax, std::max(kErlMin, g));
    }
  }
  return dtHops_ >= kDtHops;
}

bool BargeInDetector::WaveFollows(int lag) {
  if (std::abs(lag - waveLag_) > 1 || waveAge_ >= kWaveRecheckHops) {
    waveFollows_ = wave_.At(lag, kWaveMs) >= kWaveFollows || wave_.At(lag, kWaveRecentMs) >= kWaveRecentFollows;
    waveLag_ = lag;
    waveAge_ = 0;
  }
  return waveFollows_;
}

// A hop under the echo bound whose waveform does not follow the reference (see kWaveDtFloor);
// waveClear_ says how far under the bar its best match was.
bool BargeInDetector::WaveformDoubleTalk(float p) {
  if (!echoSeen_) return WindowDoubleTalk(p);
  // A delay at the window's far edge may be an echo beyond it.
  if (delayHops_ < 0 || delayHops_ + kWaveDtSpanHops + 1 >= hist_ || jumpHops_ > 0) return false;
  if (hopHeard_ < kWaveDtOver * hopNoise_) return false;
  if (p < 0.2f && hopBound_ >= hopHeard_) {
    // The echo alone, caller quiet: how closely it follows the reference on this line.
    if (++echoWaveTurn_ % kWaveDtLearnEvery == 0) {
      const float c = wave_.At(delayHops_, kWaveDtMs);
      echoWaveLow_ += kWaveDtRate * (c < echoWaveLow_ ? kWaveDtQuantile - 1.f : kWaveDtQuantile);
    }
    return false;
  }
  if (p < kWaveDtQuiet || hopBound_ < kWaveDtEcho * hopHeard_) return false;
  const float bar = std::min(kWaveDtCeil, std::max(kWaveDtFloor, kWaveDtShare * echoWaveLow_));
  float top = DelayWaveMatch();
  if (top >= bar) return false;
  const bool elsewhere = shapeLag_ >= 0 && std::abs(shapeLag_ - delayHops_) > kWaveDtSpanHops + 1;
  if (elsewhere) top = std::max(top, wave_.At(shapeLag_, kWaveDtMs));
  waveClear_ = top / bar;
  return top < bar;
}

// How closely the mic's last 40 ms follow the reference within two hops of the trusted delay.
float BargeInDetector::DelayWaveMatch() {
  float top = 0;
  for (int k = delayHops_ - kWaveDtSpanHops; k <= delayHops_ + kWaveDtSpanHops; k += 2)  // At(k) spans k +- 1 hop
    if (k >= 0 && k < hist_) top = std::max(top, wave_.At(k, kWaveDtMs));
  return top;
}

// The same, or at the lag whose band shape the mic matches now if that is elsewhere (an echo
// that jumped).
float BargeInDetector::EchoWaveMatch() {
  const float top = DelayWaveMatch();
  const bool elsewhere = shapeLag_ >= 0 && std::abs(shapeLag_ - delayHops_) > kWaveDtSpanHops + 1;
  return elsewhere ? std::max(top, wave_.At(shapeLag_, kWaveDtMs)) : top;
}

// Whether the mic's waveform follows the reference where the echo may be (see kEchoVeto): with a
// trusted delay, within 40 ms of it (drift) and at the lag whose band shape the mic matches now
// (a jump); before, at any lag of the window.
bool BargeInDetector::WaveformEcho() {
  if (delayHops_ < 0) {
    for (int k = kWaveDtSpanHops; k < hist_ + kWaveDtSpanHops; k += 2 * kWaveDtSpanHops)  // At(k) spans k +- 1 hop
      if (wave_.At(k, kWaveDtMs) >= kEchoVeto) return true;
    return false;
  }
  for (int k : {delayHops_, delayHops_ - 3, delayHops_ + 3})
    if (k >= 0 && k < hist_ && wave_.At(k, kWaveDtMs) >= kEchoVeto) return true;
  return shapeLag_ >= 0 && std::abs(shapeLag_ - delayHops_) > 4 && wave_.At(shapeLag_, kWaveDtMs) >= kEchoVeto;
}

// The waveform test before a delay is trusted: every lag of the window (see kWaveDtBar0 and
// kWaveDtBarMasked).
bool BargeInDetector::WindowDoubleTalk(float p) {
  if (hopHeard_ < kWaveDtOver * hopNoise_ || hopBound_ < kWaveDtEcho * hopHeard_) return false;
  const bool masked = p < kWaveDtQuiet;
  const float bar = masked ? kWaveDtBarMasked : kWaveDtBar0;
  float top = 0;
  for (int k = kWaveDtSpanHops; k < hist_ + kWaveDtSpanHops; k += 2 * kWaveDtSpanHops) {  // At(k) spans k +- 1 hop
    top = std::max(top, wave_.At(k, kWaveDtMs));
    if (top >= bar) return false;  // the echo, most likely: no need to look further
  }
  waveClear_ = masked ? 1.f : top / kWaveDtBar0;  // masked hops never count as strong ones
  return true;
}

}  // namespace vc

#include "vc/bargein.h"

#include <cmath>
#include <cstring>

namespace vc {

namespace {
// -15 dB (+ the 6 dB margin) at the start of a call: still above a -10 dB echo path, so the
// agent's first words never interrupt themselves, while caller speech 9 dB under the agent's
// level already counts. bench:turns: -10 dB made early barge-ins need speech near the agent's
// own level (p95 263 ms in a call's first seconds); -25 dB gave 85 ms but 5.8 false
// barge-ins/min on full-band -10 dB echo before the path was learned.
constexpr float kErlInit = 0.03f;
constexpr float kErlMax = 0.2f;
constexpr float kErlMin = 1e-4f;
int16_t kSilence[4800] = {0};      // stands in for a missing reference (48 kHz x 100 ms)
}  // namespace

Status BargeInDetector::Init(int micRateHz, int refRateHz, int frameMs, const BargeInOptions& o,
                             const VadOptions& vo) {
  if (o.minDurationMs < 0 || o.minDurationMs > 10000 || o.gapMs < 0 || o.gapMs > 10000 ||
      o.maxEchoDelayMs < 0 || o.maxEchoDelayMs > 990 || !(o.threshold > 0 && o.threshold < 1) ||
      !(o.echoMarginDb >= 0 && o.echoMarginDb <= 30))
    return Status::kInvalidArgument;
  Status s = vad_.Init(micRateHz, frameMs, vo);
  if (!Ok(s)) return s;
  s = ref_.Init(refRateHz);
  if (!Ok(s)) return s;
  o_ = o;
  hops_ = frameMs / 10;
  hist_ = o.maxEchoDelayMs / 10 + 2;  // +2 hops: echo straddles hop edges
  margin_ = std::pow(10.f, o.echoMarginDb / 10.f);
  Reset();
  return Status::kOk;
}

void BargeInDetector::Reset() {
  vad_.Reset();
  caller_.Reset();
  std::memset(ring_, 0, sizeof ring_);
  std::memset(shape_, 0, sizeof shape_);
  std::memset(corr_, 0, sizeof corr_);
  delayHops_ = -1;
  for (float& g : erl_) g = kErlInit;
  head_ = 0;
  nowMs_ = runMs_ = quietMs_ = 0;
  markMs_ = lastMs_ = -1;
  refActiveHops_ = 0;
  fired_ = false;
}

void BargeInDetector::Shape(const float* pow, float* out) {
  float mean = 0, norm = 0;
  for (int b = 0; b < kBands; ++b) { out[b] = std::log(pow[b]); mean += out[b]; }
  mean *= 1.0f / kBands;
  for (int b = 0; b < kBands; ++b) { out[b] -= mean; norm += out[b] * out[b]; }
  const float inv = norm > 1e-6f ? 1.0f / std::sqrt(norm) : 0.f;
  for (int b = 0; b < kBands; ++b) out[b] *= inv;
}

float BargeInDetector::HopProbability(const float* mic, const float* micFloor, const float* refBands) {
  std::memcpy(ring_[head_], refBands, sizeof(float) * kBands);
  Shape(refBands, shape_[head_]);
  const int newest = head_;
  head_ = (head_ + 1) % hist_;
  float maxRef[kBands];
  std::memcpy(maxRef, ring_[0], sizeof maxRef);
  for (int k = 1; k < hist_; ++k)
    for (int b = 0; b < kBands; ++b) maxRef[b] = std::max(maxRef[b], ring_[k][b]);
  // Echo delay: the lag whose reference spectral shape best matches the mic,
  // learned only while the reference is loud and the mic hears something.
  float refAct = 0, micAct = 0;
  for (int b = 0; b < kBands; ++b) {
    refAct += maxRef[b] * erl_[b] > micFloor[b] ? 1.f : 0.f;
    micAct += mic[b] > 4.f * micFloor[b] ? 1.f : 0.f;
  }
  if (refAct >= 4 && micAct >= 4) {
    float m[kBands];
    Shape(mic, m);
    for (int k = 0; k < hist_; ++k) {
      const float* r = shape_[(newest - k + hist_) % hist_];
      float c = 0;
      for (int b = 0; b < kBands; ++b) c += m[b] * r[b];
      corr_[k] += 0.03f * (c - corr_[k]);
    }
    int best = 0;
    float mean = 0;
    for (int k = 0; k < hist_; ++k) { mean += corr_[k]; if (corr_[k] > corr_[best]) best = k; }
    mean /= hist_;
    delayHops_ = corr_[best] > 0.25f && corr_[best] - mean > 0.1f ? best : -1;
  }
  // With a trusted delay the echo bound uses the reference around that lag
  // (+-1 hop for sub-hop delays); otherwise the whole window's maximum.
  float sel[kBands];
  if (delayHops_ >= 0) {
    for (int b = 0; b < kBands; ++b) sel[b] = 0;
    for (int k = std::max(0, delayHops_ - 1); k <= std::min(hist_ - 1, delayHops_ + 1); ++k) {
      const float* r = ring_[(newest - k + hist_) % hist_];
      for (int b = 0; b < kBands; ++b) sel[b] = std::max(sel[b], r[b]);
    }
  } else {
    std::memcpy(sel, maxRef, sizeof sel);
  }
  float extra[kBands];
  for (int b = 0; b < kBands; ++b) extra[b] = margin_ * erl_[b] * sel[b];
  refActiveHops_ = refAct >= 2 ? 30 : std::max(0, refActiveHops_ - 1);
  const float p = caller_.Score(mic, extra);
  if (p < 0.3f) {
    // Learn the echo return loss while the caller is quiet: rise quickly to
    // the observed mic/ref ratio, decay when the echo is weaker.
    for (int b = 0; b < kBands; ++b) {
      if (sel[b] < 30.f * micFloor[b]) continue;  // reference too weak here
      const float r = (mic[b] - micFloor[b]) / sel[b];
      float& g = erl_[b];
      g = r > g ? g + 0.2f * (r - g) : g * 0.99f;
      g = std::min(kErlMax, std::max(kErlMin, g));
    }
  }
  return p;
}

void BargeInDetector::ProcessFrame(const int16_t* mic, const int16_t* ref, VadResult* vad,
                                   BargeInResult* r) {
  vad_.ProcessFrame(mic, vad);
  const int refHop = ref_.hopSamples();
  float sum = 0;
  int evidence = 0;
  for (int h = 0; h < hops_; ++h) {
    float rb[kBands];
    ref_.ProcessHop(ref ? ref + h * refHop : kSilence, rb);
    sum += HopProbability(vad_.hopBands(h), vad_.noiseFloor(), rb);
    if (caller_.rawLlr() >= kEvidenceLlr) ++evidence;
  }
  const int frameMs = hops_ * 10;
  const float p = sum / hops_;
  const int evidenceMs = evidence * 10;
  const int64_t frameStart = nowMs_;
  nowMs_ += frameMs;
  r->events = 0;
  r->callerProbability = p;
  r->callerSpeech = p >= o_.threshold;
  r->agentActive = refActiveHops_ > 0;
  // Duration counts only hops that are caller speech on their own evidence,
  // so the smoothed tail of a short loud burst cannot reach minDurationMs.
  if (r->callerSpeech && evidenceMs > 0) {
    if (runMs_ == 0) markMs_ = frameStart;
    runMs_ += evidenceMs;
    quietMs_ = 0;
    if (!fired_ && runMs_ >= o_.minDurationMs && runMs_ > 0) {
      fired_ = true;
      lastMs_ = markMs_;
      r->events |= kBargeInInterruption;
    }
  } else if (!r->callerSpeech && runMs_ > 0) {
    quietMs_ += frameMs;
    if (quietMs_ >= o_.gapMs) {  // the spurt is over: re-arm
      if (fired_) r->events |= kBargeInEnd;
      runMs_ = quietMs_ = 0;
      fired_ = false;
    }
  }
  r->interruptionMs = lastMs_;
}

}  // namespace vc

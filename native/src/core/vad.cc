#include "vc/vad.h"

#include <cmath>
#include <cstring>

namespace vc {

Status BandAnalyzer::Init(int rateHz) {
  if (!RateOk(rateHz) || rateHz % 100) return Status::kUnsupportedRate;
  hop_ = rateHz / 100;
  // Log-spaced centres 200..3600 Hz: the band telephone speech lives in at 8 kHz.
  for (int b = 0; b < kBands; ++b) {
    const double f0 = 200.0 * std::pow(3600.0 / 200.0, b / (kBands - 1.0));
    const double w0 = 2 * M_PI * f0 / rateHz;
    const double bw = 0.30;  // octaves
    const double alpha = std::sin(w0) * std::sinh(std::log(2.0) / 2 * bw * w0 / std::sin(w0));
    const double a0 = 1 + alpha;
    b0_[b / 8][b % 8] = static_cast<float>(alpha / a0);
    a1_[b / 8][b % 8] = static_cast<float>(-2 * std::cos(w0) / a0);
    a2_[b / 8][b % 8] = static_cast<float>((1 - alpha) / a0);
  }
  for (int i = 0; i < 2; ++i) y1_[i] = y2_[i] = v8f{0};
  x1_ = x2_ = 0;
  return Status::kOk;
}

VC_MULTIVERSION
void BandAnalyzer::ProcessHop(const int16_t* x, float* bandPow) {
  v8f y1a = y1_[0], y1b = y1_[1], y2a = y2_[0], y2b = y2_[1];
  v8f ea = {0}, eb = {0};
  float x1 = x1_, x2 = x2_;
  for (int i = 0; i < hop_; ++i) {
    const float xi = x[i];
    const float d = xi - x2;  // band-pass numerator b0*(x[n]-x[n-2])
    // Only the a1*y1 term sits on the recursive critical path.
    const v8f ta = b0_[0] * d - a2_[0] * y2a, tb = b0_[1] * d - a2_[1] * y2b;
    v8f ya = ta - a1_[0] * y1a;
    v8f yb = tb - a1_[1] * y1b;
    y2a = y1a; y1a = ya;
    y2b = y1b; y1b = yb;
    ea += ya * ya;
    eb += yb * yb;
    x2 = x1;
    x1 = xi;
  }
  y1_[0] = y1a; y1_[1] = y1b; y2_[0] = y2a; y2_[1] = y2b;
  x1_ = x1; x2_ = x2;
  const float inv = 1.0f / hop_;
  for (int b = 0; b < 8; ++b) {
    bandPow[b] = ea[b] * inv + 1e-3f;  // tiny floor keeps logs finite on digital silence
    bandPow[8 + b] = eb[b] * inv + 1e-3f;
  }
}

void SpeechScorer::Reset() {
  std::memset(floor_, 0, sizeof floor_);
  std::memset(clean_, 0, sizeof clean_);
  smooth_ = prob_ = 0;
  hops_ = 0;
  blockHops_ = slot_ = 0;
}

float SpeechScorer::Score(const float* e, const float* extra) {
  if (hops_ == 0) {
    for (int b = 0; b < kBands; ++b) {
      floor_[b] = blockMin_[b] = e[b];
      for (auto& sl : slotMin_) sl[b] = e[b];
    }
  }
  ++hops_;
  float llr = 0;
  for (int b = 0; b < kBands; ++b) {
    const float n = floor_[b] + (extra ? extra[b] : 0.f);
    float g = e[b] / n;                 // a posteriori SNR
    if (g > 1000.f) g = 1000.f;         // one click cannot dominate
    float xi = 0.9f * clean_[b] / n + 0.1f * (g > 1.f ? g - 1.f : 0.f);  // decision-directed
    if (xi < 0.003f) xi = 0.003f;
    const float gain = xi / (1.f + xi);
    llr += g * gain - std::log1p(xi);
    clean_[b] = gain * gain * e[b];
  }
  llr *= 1.0f / kBands;
  raw_ = llr;
  // Fast attack, slower release: onset in one hop, fewer holes inside words.
  smooth_ = llr > smooth_ ? 0.2f * smooth_ + 0.8f * llr : 0.8f * smooth_ + 0.2f * llr;
  const float p = 1.f / (1.f + std::exp(-3.0f * (smooth_ - 0.6f)));
  // Noise floor: follow down quickly, up fast only when this hop looks like noise.
  // The first 200 ms adapt fast: a stream may start with a filter warm-up or silence.
  const float up = hops_ < 20 ? 0.3f : p < 0.3f ? 0.04f : (p < 0.7f ? 0.01f : 0.0015f);
  const bool rotate = ++blockHops_ >= 50;
  for (int b = 0; b < kBands; ++b) {
    blockMin_[b] = std::min(blockMin_[b], e[b]);
    const float d = e[b] - floor_[b];
    if (!(d > 0 && extra && extra[b] > floor_[b])) {  // a rise under echo is not noise
      floor_[b] += (d < 0 ? 0.15f : up) * d;
    }
    // Never below the 1-1.5 s band minimum, so a floor that started too low recovers.
    const float m = std::min(blockMin_[b], std::min(slotMin_[0][b], std::min(slotMin_[1][b], slotMin_[2][b])));
    if (floor_[b] < m) floor_[b] = m;
    if (floor_[b] < 1e-3f) floor_[b] = 1e-3f;
    if (rotate) { slotMin_[slot_][b] = blockMin_[b]; blockMin_[b] = 3.4e38f; }
  }
  if (rotate) { blockHops_ = 0; slot_ = (slot_ + 1) % 3; }
  prob_ = p;
  return p;
}

Status VadStateMachine::Init(const VadOptions& o) {
  if (!(o.threshold > 0.f && o.threshold < 1.f)) return Status::kInvalidArgument;
  if (o.startMs < 0 || o.startMs > 10000 || o.stopMs < 0 || o.stopMs > 10000) return Status::kInvalidArgument;
  o_ = o;
  Reset();
  return Status::kOk;
}

void VadStateMachine::Reset() {
  state_ = VadState::kQuiet;
  nowMs_ = runMs_ = markMs_ = 0;
  startMs_ = endMs_ = -1;
}

void VadStateMachine::Update(float prob, int frameMs, int evidenceMs, VadResult* r) {
  const bool speech = prob >= o_.threshold;
  const int64_t frameStart = nowMs_;
  nowMs_ += frameMs;
  r->events = 0;
  switch (state_) {
    case VadState::kQuiet:
      if (speech) { state_ = VadState::kStarting; markMs_ = frameStart; runMs_ = 0; evidenceMs_ = 0; }
      break;
    case VadState::kStarting:
      if (!speech) state_ = VadState::kQuiet;
      break;
    case VadState::kSpeaking:
      if (!speech) { state_ = VadState::kStopping; markMs_ = frameStart; runMs_ = 0; }
      break;
    case VadState::kStopping:
      if (speech) state_ = VadState::kSpeaking;
      break;
  }
  if (state_ == VadState::kStarting || state_ == VadState::kStopping) {
    runMs_ += frameMs;
    evidenceMs_ += evidenceMs;
    // Entering speaking also needs half of startMs of hops that are speech on
    // their own (unsmoothed): a click's smoothed tail does not count.
    if (state_ == VadState::kStarting && runMs_ >= o_.startMs && 2 * evidenceMs_ >= o_.startMs) {
      state_ = VadState::kSpeaking;
      startMs_ = markMs_;  // back-dated to the first speech frame
      r->events |= kVadSpeechStart;
    } else if (state_ == VadState::kStopping && runMs_ >= o_.stopMs) {
      state_ = VadState::kQuiet;
      endMs_ = markMs_;
      r->events |= kVadSpeechEnd;
    }
  }
  r->probability = prob;
  r->state = state_;
  r->speechStartMs = startMs_;
  r->speechEndMs = endMs_;
}

Status Vad::Init(int rateHz, int frameMs, const VadOptions& o) {
  if (frameMs != 10 && frameMs != 20 && frameMs != 30) return Status::kUnsupportedFrame;
  Status s = an_.Init(rateHz);
  if (!Ok(s)) return s;
  s = sm_.Init(o);
  if (!Ok(s)) return s;
  hops_ = frameMs / 10;
  scorer_.Reset();
  return Status::kOk;
}

void Vad::Reset() {
  an_.Init(an_.hopSamples() * 100);
  scorer_.Reset();
  sm_.Reset();
}

void Vad::ProcessFrame(const int16_t* frame, VadResult* r) {
  float sum = 0;
  int evidenceMs = 0;
  for (int h = 0; h < hops_; ++h) {
    an_.ProcessHop(frame + h * an_.hopSamples(), bands_[h]);
    hopProb_[h] = scorer_.Score(bands_[h], nullptr);
    sum += hopProb_[h];
    if (scorer_.rawLlr() >= kEvidenceLlr) evidenceMs += 10;
  }
  sm_.Update(sum / hops_, hops_ * 10, evidenceMs, r);
}

}  // namespace vc

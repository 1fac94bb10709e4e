#include "vc/vad.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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
  // Digital silence into a filter that has rung down (no agent audio on the reference, a muted
  // mic): the band powers are the floor. The state is cleared once every |y| < 1e-3 (powers
  // under 1e-6, against the 1e-3 floor), ~100 ms after the sound stopped.
  int any = x1_ != 0.f || x2_ != 0.f;
  for (int i = 0; i < hop_; ++i) any |= x[i];
  if (!any) {
    float big = 0;
    for (int i = 0; i < 2; ++i)
      for (int b = 0; b < 8; ++b) big = std::max(big, std::max(std::fabs(y1_[i][b]), std::fabs(y2_[i][b])));
    if (big < 1e-3f) {
      for (int i = 0; i < 2; ++i) y1_[i] = y2_[i] = v8f{0};
      for (int b = 0; b < kBands; ++b) bandPow[b] = 1e-3f;
      return;
    }
  }
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

namespace {
// Background quantile steps per 10 ms hop: +0.03 dB when the hop is above it, -0.06 dB when
// below (equilibrium: a third of the hops below); +-1 dB in the first 200 ms.
constexpr float kBgUp = 1.0069317f, kBgDown = 0.98627803f;
constexpr float kBgWarmUp = 1.2589254f, kBgWarmDown = 0.79432823f;
constexpr int kBgStoppedHops = 20;
constexpr int kWarmUpHops = 20;  // the first 200 ms: floor and background adapt fast
constexpr float kFlatRiseDb = 2.5f;  // see FlatRise
// The stream's first second is scored again once its noise is known 10 dB under its loudest hop.
constexpr int kLookBackHops = 100;
constexpr float kLoudOverNoise = 10.f;
// Zeros after this many hops of signal in a row are a muted microphone (see HoldOverZeros).
constexpr int kHoldAfterHops = 150;
// A band this weak carries no signal: BandAnalyzer adds 1e-3 to every band (logs stay finite on
// digital zeros), and one LSB of noise gives about 0.1.
constexpr float kSilentBandPow = 2e-3f;
// A stream that opens with zeros seeds its floor from its first signal, at most this loud
// (power summed over bands: -50 dBFS RMS in int16 units, 10 dB under the quietest caller).
constexpr float kOpeningSeedMax = 32768.f * 32768.f * 1e-5f;
// A line holds its level; a word's onset climbs. A rise of 6 dB over the opening seed within
// 50 ms makes it a word's first hop, and the floor goes back to what the zeros taught.
constexpr int kOpeningHops = 5;
constexpr float kOpeningRise = 4.f;

// ln x for positive normal x: exponent + atanh series of the mantissa in [0.71, 1.41)
// (|error| < 1e-7 there). Replaces 16 log1p calls per hop (a fifth of the VAD's time).
inline v8f Ln8(v8f x) {
  const v8i bits = AsI(x);
  v8i e = ((bits >> 23) & 0xff) - 127;
  v8f m = AsF((bits & 0x007fffff) | 0x3f800000);  // [1, 2)
  const v8i big = Gt8(m, v8f{} + 1.41421356f);
  m = Select(big, m * 0.5f, m);
  e -= big;  // +1 where halved
  const v8f s = (m - 1.f) / (m + 1.f), s2 = s * s;
  const v8f lnm = 2.f * s * (1.f + s2 * (0.33333333f + s2 * (0.2f + s2 * 0.14285714f)));
  return __builtin_convertvector(e, v8f) * 0.69314718f + lnm;
}
// Every band at the band analyzer's own epsilon: digital zeros, not a line.
bool DigitalSilence(const float* bandPow) {
  for (int b = 0; b < kBands; ++b)
    if (bandPow[b] > kSilentBandPow) return false;
  return true;
}
}  // namespace

// Zeros after a line that carried a signal for a while are the microphone muted (the browser
// client sends zeros while muted), not the line gone quiet: the line that comes back is the one
// that left, so the floor and background hold still over them. Following them down, the line
// noise after a 0.5-3 s mute scored as speech until the band minima caught up (a false
// interruption at 16 and 8 kHz). On a line with silence suppression zeros come between words and
// teach the floor as before: the words after them must be heard over the zeros, not over the
// speech. Returns true while holding (the hop is not scored).
bool SpeechScorer::HoldOverZeros(bool zeros) {
  if (!zeros) {
    holding_ = false;
    if (signalHops_ < kHoldAfterHops) ++signalHops_;
    return false;
  }
  holding_ = holding_ || signalHops_ >= kHoldAfterHops;
  signalHops_ = 0;
  return holding_;
}

void SpeechScorer::Seed(const float* e, float scale) {
  for (int b = 0; b < kBands; ++b) {
    floor_[b] = blockMin_[b] = bg_[b] = e[b] * scale;
    for (auto& sl : slotMin_) sl[b] = e[b] * scale;
  }
}

// A stream that opened with zeros (a browser's microphone starting, a carrier's first packets):
// its first signal is the line, seeded at most at kOpeningSeedMax. Seeded from the zeros, a line
// of -80 dBFS scored as speech until the band minima caught up (a false interruption within
// 100 ms, VAD speech). A digital caller's first word (zeros, then the word) is still heard: over
// the cap if it opens loud, and if it opens quietly its onset climbs, and the floor goes back to
// the zeros' (a -40 dBFS caller's first hops under the seed cost 60 ms otherwise).
void SpeechScorer::Open(const float* e) {
  float total = 0;
  for (int b = 0; b < kBands; ++b) total += e[b];
  const float scale = std::min(1.f, kOpeningSeedMax / total);
  if (!opened_) {
    opened_ = true;
    if (hops_ == 0) return;  // the stream opened with a signal: seeded from it as always
    Seed(e, scale);
    seedPow_ = scale < 1.f ? 0.f : total;  // 0: capped, a loud word is heard over the cap
    openingHops_ = kOpeningHops;
    return;
  }
  --openingHops_;
  if (seedPow_ > 0.f && total > kOpeningRise * seedPow_) {
    float zero[kBands];
    for (float& z : zero) z = 1e-3f;  // BandAnalyzer's band power of digital zeros
    Seed(zero, 1.f);
    openingHops_ = 0;
    return;
  }
  // One hop's band power is a poor estimate of a noise band (a few degrees of freedom): the
  // floor takes the largest of the window's hops (capped), and falls to the noise's level after.
  for (int b = 0; b < kBands; ++b) {
    floor_[b] = std::max(floor_[b], e[b] * scale);
    bg_[b] = std::max(bg_[b], e[b] * scale);
  }
}

void SpeechScorer::Reset() {
  std::memset(floor_, 0, sizeof floor_);
  std::memset(bg_, 0, sizeof bg_);
  bgQuietHops_ = 0;
  std::memset(clean_, 0, sizeof clean_);
  smooth_ = prob_ = 0;
  hops_ = 0;
  signalHops_ = 0;
  holding_ = opened_ = false;
  openingHops_ = 0;
  seedPow_ = 0;
  blockHops_ = slot_ = 0;
}

// Whether the hop rose over the noise alike in every band (spread under kFlatRiseDb): the line
// itself got louder (a noise that starts after a quiet first hop), not a voice, whose formants
// rise some bands far more than others. Noise steps of 8-20 dB at 30-100 ms: spread 1.9 dB at the
// median, 2.7 at the 90th percentile; callers' first hops 3.9 at the median.
bool SpeechScorer::FlatRise(const float* e) const {
  float sum = 0, sq = 0;
  for (int b = 0; b < kBands; ++b) {
    const float db = 10.f * std::log10(e[b] / std::max(std::max(floor_[b], bg_[b]), 1e-6f));
    sum += db;
    sq += db * db;
  }
  const float mean = sum / kBands;
  return sq / kBands - mean * mean < kFlatRiseDb * kFlatRiseDb;
}

void SpeechScorer::ResumeFrom(const float* floor, const float* background) {
  Reset();
  for (int b = 0; b < kBands; ++b) {
    floor_[b] = blockMin_[b] = floor[b];
    bg_[b] = background[b];
    for (auto& sl : slotMin_) sl[b] = floor[b];
  }
  hops_ = kWarmUpHops + 1;
  opened_ = true;
}

VC_MULTIVERSION
float SpeechScorer::Score(const float* e, const float* extra) {
  const bool zeros = DigitalSilence(e);
  if (HoldOverZeros(zeros)) {
    raw_ = 0;
    smooth_ *= 0.8f;  // the release of a hop with no evidence
    prob_ = 1.f / (1.f + std::exp(-3.0f * (smooth_ - 0.6f)));
    return prob_;
  }
  if (hops_ == 0) Seed(e, 1.f);
  if (!zeros && (!opened_ || openingHops_ > 0)) Open(e);
  ++hops_;
  // Sohn likelihood ratio per band against the noise (the larger of the floor and the
  // background, plus the expected echo), 8 bands at a time.
  v8f acc = {0};
  for (int h = 0; h < kBands; h += 8) {
    const v8f eb = LoadU8(e + h);
    v8f n = Max8(LoadU8(floor_ + h), LoadU8(bg_ + h));
    if (extra) n += LoadU8(extra + h);
    const v8f g = Min8(eb / n, v8f{} + 1000.f);  // a posteriori SNR; one click cannot dominate
    v8f xi = 0.9f * LoadU8(clean_ + h) / n + 0.1f * Max8(g - 1.f, v8f{});  // decision-directed
    xi = Max8(xi, v8f{} + 0.003f);
    const v8f gain = xi / (1.f + xi);
    acc += g * gain - Ln8(1.f + xi);
    const v8f c = gain * gain * eb;
    std::memcpy(clean_ + h, &c, sizeof c);
  }
  const float llr = HSum8(acc) * (1.0f / kBands);
  raw_ = llr;
  // Fast attack, slower release: onset in one hop, fewer holes inside words.
  smooth_ = llr > smooth_ ? 0.2f * smooth_ + 0.8f * llr : 0.8f * smooth_ + 0.2f * llr;
  const float p = 1.f / (1.f + std::exp(-3.0f * (smooth_ - 0.6f)));
  // Noise floor: follow down quickly, up fast only when this hop looks like noise.
  // The first 200 ms adapt fast: a stream may start with a filter warm-up or silence. Not the
  // barge-in scorer's on a hop that looks like speech while the agent plays, unless every band
  // rose alike (FlatRise): a caller who speaks as the greeting starts was learned as the line
  // within 100 ms and held under it (white noise at -30 dBFS, a caller at -15 dBFS 35 ms in:
  // heard after 461 ms). Without the agent's audio the warm-up stays as it was: music at a
  // call's start learned that way keeps the greeting that follows it from being cut.
  const bool heldOff = speechRise_ > 0.f && agentPlaying_ && p >= 0.7f && hops_ < kWarmUpHops && !FlatRise(e);
  const bool warm = hops_ < kWarmUpHops && !heldOff;
  const float up = warm ? 0.3f : p < 0.3f ? 0.04f : (p < 0.7f ? 0.01f : 0.0015f);
  // The step is linear in power: a vowel 50 dB over the floor lifts it by ~30 dB in a hop.
  const bool limitRise = speechRise_ > 0.f && !warm && p >= 0.7f;
  // A background that stopped (10 dB down for 200 ms: a crowd does not pause that long) is
  // dropped to the floor, so a quieter caller right after it is not masked for seconds.
  float eTot = 0, bgTot = 0;
  for (int b = 0; b < kBands; ++b) { eTot += e[b]; bgTot += bg_[b]; }
  bgQuietHops_ = eTot < 0.1f * bgTot ? bgQuietHops_ + 1 : 0;
  const v8i stopped = v8i{} - (bgQuietHops_ >= kBgStoppedHops ? 1 : 0);
  const v8f bgUp = v8f{} + (hops_ <= kWarmUpHops && !heldOff ? kBgWarmUp : kBgUp), bgDown = v8f{} + (hops_ <= kWarmUpHops ? kBgWarmDown : kBgDown);
  const v8i rotate = v8i{} - (++blockHops_ >= 50 ? 1 : 0);
  // Per band, 8 at a time (masks instead of branches).
  for (int h = 0; h < kBands; h += 8) {
    const v8f eb = LoadU8(e + h);
    v8f fl = LoadU8(floor_ + h), bg = LoadU8(bg_ + h), bmin = LoadU8(blockMin_ + h);
    // Under echo (expected echo above the floor) neither the floor nor the background rises:
    // a rise there is not noise (the echo bound covers it).
    const v8i echo = extra ? Gt8(LoadU8(extra + h), fl) : v8i{};
    const v8i rise = Gt8(eb, bg);
    bg = Select(rise & echo, bg, bg * Select(rise, bgUp, bgDown));
    bmin = Min8(bmin, eb);
    const v8f d = eb - fl;
    const v8i dUp = Gt8(d, v8f{});
    fl = Select(dUp & echo, fl, fl + Select(dUp, v8f{} + up, v8f{} + 0.15f) * d);
    if (limitRise) fl = Min8(fl, LoadU8(floor_ + h) * speechRise_);
    // Never below the 1-1.5 s band minimum, so a floor that started too low recovers.
    const v8f m = Min8(bmin, Min8(LoadU8(slotMin_[0] + h), Min8(LoadU8(slotMin_[1] + h), LoadU8(slotMin_[2] + h))));
    fl = Max8(Max8(fl, m), v8f{} + 1e-3f);
    bg = Select(stopped, Min8(bg, fl), bg);
    std::memcpy(floor_ + h, &fl, sizeof fl);
    std::memcpy(bg_ + h, &bg, sizeof bg);
    const v8f slotNew = Select(rotate, bmin, LoadU8(slotMin_[slot_] + h));
    std::memcpy(slotMin_[slot_] + h, &slotNew, sizeof slotNew);
    bmin = Select(rotate, v8f{} + 3.4e38f, bmin);
    std::memcpy(blockMin_ + h, &bmin, sizeof bmin);
  }
  if (rotate[0]) { blockHops_ = 0; slot_ = (slot_ + 1) % 3; }
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
  early_.reset(new float[kLookBackHops * kBands]);
  earlyHops_ = 0;
  return Status::kOk;
}

void Vad::Reset() {
  an_.Init(an_.hopSamples() * 100);
  scorer_.Reset();
  sm_.Reset();
  if (!early_) early_.reset(new float[kLookBackHops * kBands]);
  earlyHops_ = 0;
}

void Vad::Remember(const float* bands) {
  float power = 0;
  for (int b = 0; b < kBands; ++b) power += bands[b];
  loudest_ = earlyHops_ == 0 ? power : std::max(loudest_, power);
  std::memcpy(early_.get() + earlyHops_++ * kBands, bands, kBands * sizeof(float));
}

// The scorer seeds its floor from the stream's first hop and adapts fast for 200 ms. A stream
// that opens inside a word ("yes?" at pickup) makes that word the line's noise, so it is never
// speech. Once the noise (floor and background) has shown itself 10 dB under the loudest kept
// hop, the kept hops are scored again as if that noise had been known from the start, and a
// speech start found there is reported now, back-dated. Only while the state machine has not
// begun speech on its own, within the first second; then the kept hops are freed.
void Vad::LookBack(VadResult* r) {
  if (r->speechStartMs >= 0 || earlyHops_ + hops_ > kLookBackHops) {
    early_.reset();
    return;
  }
  const float* fl = scorer_.floor();
  const float* bg = scorer_.background();
  float noise = 0;
  for (int b = 0; b < kBands; ++b) noise += std::max(fl[b], bg[b]);
  if (noise * kLoudOverNoise > loudest_) return;
  SpeechScorer again;
  again.ResumeFrom(fl, bg);
  VadStateMachine sm = sm_;
  sm.Reset();
  VadResult v;
  int events = 0;
  for (int at = 0; at < earlyHops_; at += hops_) {
    float sum = 0;
    int evidenceMs = 0;
    for (int h = 0; h < hops_; ++h) {
      sum += again.Score(early_.get() + (at + h) * kBands, nullptr);
      if (again.rawLlr() >= kEvidenceLlr) evidenceMs += 10;
    }
    sm.Update(sum / hops_, hops_ * 10, evidenceMs, &v);
    events |= v.events;
  }
  if (v.speechStartMs >= 0) {
    sm_ = sm;
    v.probability = r->probability;
    v.events = events;
    *r = v;
  }
  early_.reset();
}

void Vad::ProcessFrame(const int16_t* frame, VadResult* r) {
  float sum = 0;
  int evidenceMs = 0;
  for (int h = 0; h < hops_; ++h) {
    an_.ProcessHop(frame + h * an_.hopSamples(), bands_[h]);
    if (early_) Remember(bands_[h]);
    hopProb_[h] = scorer_.Score(bands_[h], nullptr);
    sum += hopProb_[h];
    if (scorer_.rawLlr() >= kEvidenceLlr) evidenceMs += 10;
  }
  sm_.Update(sum / hops_, hops_ * 10, evidenceMs, r);
  if (early_) LookBack(r);
}

}  // namespace vc

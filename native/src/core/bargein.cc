#include "vc/bargein.h"

#include <cmath>
#include <cstring>

namespace vc {

namespace {
// Every lag starts a call assuming a -15 dB echo path (+ the 6 dB margin): still above a
// -10 dB path, so the agent's first words never interrupt themselves. Lags then learn on their
// own: a lag whose reference was loud while the mic stayed quiet carries no echo and stops
// masking the caller within a few hundred ms (bench:turns: a single gain for all lags needed
// 10-20 s of agent speech to come down, and barge-ins in a call's first seconds took up to
// 500 ms), while a lag not yet learned still covers an echo arriving that late.
constexpr float kErlInit = 0.03f;
constexpr float kErlMax = 0.2f;
constexpr float kErlRise = 0.2f;   // share of the gap closed per hop when the echo is stronger
constexpr float kErlCreep = 1.02f;  // per hop (+0.09 dB) for energy beyond the bound
constexpr float kErlDecay = 0.95f; // per hop (-0.22 dB) where the mic stays under the bound
constexpr float kDecayBelow = 0.5f;  // a lag decays only while the mic is under this share of its bound
constexpr float kMatchNow = 0.6f;  // shape correlation that keeps a lag in the bound after the delay moved
constexpr float kEchoLike = 0.2f;  // shape correlation at the delay above the mean over lags: echo
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
  for (auto& lag : erl_)
    for (float& g : lag) g = kErlInit;
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
  float maxRef[kBands] = {0};
  for (int k = 0; k < hist_; ++k)
    for (int b = 0; b < kBands; ++b) maxRef[b] = std::max(maxRef[b], ring_[k][b]);
  // Echo delay: the lag whose reference spectral shape best matches the mic,
  // learned only while the reference is loud and the mic hears something.
  float refAct = 0, micAct = 0;
  for (int b = 0; b < kBands; ++b) {
    refAct += maxRef[b] * kErlInit > micFloor[b] ? 1.f : 0.f;
    micAct += mic[b] > 4.f * micFloor[b] ? 1.f : 0.f;
  }
  bool match[kMaxHist] = {false};  // lags whose shape matches the mic in this very hop
  bool echoLike = false;            // the mic has the shape of the reference at the trusted delay
  if (refAct >= 4 && micAct >= 4) {
    float m[kBands], now[kMaxHist], nowMean = 0;
    Shape(mic, m);
    for (int k = 0; k < hist_; ++k) {
      const float* r = shape_[(newest - k + hist_) % hist_];
      float c = 0;
      for (int b = 0; b < kBands; ++b) c += m[b] * r[b];
      corr_[k] += 0.03f * (c - corr_[k]);
      match[k] = c > kMatchNow;
      now[k] = c;
      nowMean += c;
    }
    nowMean /= hist_;
    int best = 0;
    float mean = 0;
    for (int k = 0; k < hist_; ++k) { mean += corr_[k]; if (corr_[k] > corr_[best]) best = k; }
    mean /= hist_;
    delayHops_ = corr_[best] > 0.25f && corr_[best] - mean > 0.1f ? best : -1;
    if (delayHops_ >= 0) {
      float atDelay = 0;
      for (int k = std::max(0, delayHops_ - 1); k <= std::min(hist_ - 1, delayHops_ + 1); ++k) atDelay = std::max(atDelay, now[k]);
      echoLike = atDelay - nowMean > kEchoLike;
    }
  }
  // Echo bound: the largest echo the candidate lags could carry, each lag with its own gain;
  // with a trusted delay only the lags around it (+-1 hop for sub-hop delays).
  const int first = delayHops_ >= 0 ? std::max(0, delayHops_ - 1) : 0;
  const int last = delayHops_ >= 0 ? std::min(hist_ - 1, delayHops_ + 1) : hist_ - 1;
  float extra[kBands] = {0};
  for (int k = 0; k < hist_; ++k) {
    if ((k < first || k > last) && !match[k]) continue;
    const float* r = ring_[(newest - k + hist_) % hist_];
    for (int b = 0; b < kBands; ++b) extra[b] = std::max(extra[b], erl_[k][b] * r[b]);
  }
  for (float& e : extra) e *= margin_;
  refActiveHops_ = refAct >= 2 ? 30 : std::max(0, refActiveHops_ - 1);
  const float p = caller_.Score(mic, extra);
  const bool quiet = p < 0.3f;
  if (quiet || echoLike) {
    // Learn while the caller is quiet, lag by lag.
    // Rising, every lag, towards the mic/ref ratio against the loudest reference of the
    // window: the least gain that explains the mic whatever the delay (a ratio against one
    // lag's own reference would read the caller's first syllables as a loud echo). Energy the
    // bound already covers within its margin is learned fast as echo; energy beyond it is
    // usually the caller's onset, which must not teach the bound to hide them, so there it
    // only creeps (a louder echo path is still learned, in seconds).
    // Decaying, per lag, where the reference was loud and the mic stayed well under that
    // lag's bound: at the true delay the mic always carries the echo, so only lags without
    // echo decay — fast, so a quiet line stops masking the caller within a few hundred ms —,
    // and a lag is only learned once its own reference is loud (an echo arriving late meets
    // the initial gain).
    for (int b = 0; b < kBands; ++b) {
      if (maxRef[b] < 30.f * micFloor[b]) continue;  // reference too weak here
      const float heard = std::max(0.f, mic[b] - micFloor[b]);
      const float least = heard / maxRef[b];
      const bool covered = mic[b] <= extra[b] + micFloor[b];
      for (int k = 0; k < hist_; ++k) {
        const float r = ring_[(newest - k + hist_) % hist_][b];
        float& g = erl_[k][b];
        if (least > g)
          g = quiet && (covered || echoLike) ? g + kErlRise * (least - g) : std::min(least, g * kErlCreep);
        else if (quiet && r >= 30.f * micFloor[b] && heard < kDecayBelow * g * r)
          g *= kErlDecay;
        g = std::min(kErlMax, std::max(kErlMin, g));
      }
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

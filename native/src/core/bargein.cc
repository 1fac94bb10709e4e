// The barge-in detector, hop by hop: the echo delay and gain, the echo bound, the caller's evidence and
// the run that raises an interruption (the class and its state: vc/bargein.h).
#include "vc/bargein.h"
#include "vc/simd.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "bargein_tuning.h"

namespace vc {

using namespace bargein;

namespace {
// How much of minDurationMs an evidence hop counts for (see kCreditBonus).
float EvidenceWeight(float excess) {
  const float over = std::log(excess / kEvidenceExcess) / std::log(kFullBonusExcess / kEvidenceExcess);
  return 1.f + kCreditBonus * std::min(1.f, std::max(0.f, over));
}

int16_t kSilence[4800] = {0};      // stands in for a missing reference (48 kHz x 100 ms)
}  // namespace

Status BargeInDetector::Init(int micRateHz, int refRateHz, int frameMs, const BargeInOptions& o,
                             const VadOptions& vo) {
  if (o.minDurationMs < 0 || o.minDurationMs > 10000 || o.gapMs < 0 || o.gapMs > 10000 ||
      o.maxEchoDelayMs < 0 || o.maxEchoDelayMs > 990 || !(o.threshold > 0 && o.threshold < 1) ||
      !(o.echoMarginDb >= 0 && o.echoMarginDb <= 30) || o.echoCancellerMs < 0 || o.echoCancellerMs > 64)
    return Status::kInvalidArgument;
  Status s = vad_.Init(micRateHz, frameMs, vo);
  if (!Ok(s)) return s;
  s = ref_.Init(refRateHz);
  if (!Ok(s)) return s;
  o_ = o;
  hops_ = frameMs / 10;
  cancelEcho_ = o.echoCancellerMs > 0;
  if (cancelEcho_) {
    s = canceller_.Init(micRateHz, refRateHz, o.maxEchoDelayMs, o.echoCancellerMs);
    if (!Ok(s)) return s;
  }
  s = wave_.Init(micRateHz, refRateHz, o.maxEchoDelayMs + 10);
  if (!Ok(s)) return s;
  hist_ = o.maxEchoDelayMs / 10 + 2;  // +2 hops: echo straddles hop edges
  caller_.LimitSpeechRise(kFloorSpeechRise);
  margin_ = std::pow(10.f, o.echoMarginDb / 10.f);
  Reset();
  return Status::kOk;
}

void BargeInDetector::Reset() {
  echoWaveLow_ = kWaveDtEchoStart;
  echoWaveTurn_ = 0;
  vad_.Reset();
  caller_.Reset();
  std::memset(ring_, 0, sizeof ring_);
  std::memset(shape_, 0, sizeof shape_);
  std::memset(corr_, 0, sizeof corr_);
  std::memset(audible_, 0, sizeof audible_);
  std::memset(refStep_, 0, sizeof refStep_);
  std::memset(env_, 0, sizeof env_);
  refLog_ = micLog_ = 0;
  for (float& v : burstLog_) v = kNoBurst;
  for (bool& v : burstRamped_) v = false;
  burstHead_ = 0;
  burstDipLog_ = 0;
  loud_ = LoudRun{};
  stretch_ = Stretch{};
  delayHops_ = -1;
  jumpLag_ = -10;
  jumpHops_ = 0;
  echoSeen_ = capTurn_ = false;
  for (float& g : erl_) g = kErlInit;
  for (float& g : dtGain_) g = kErlInit;
  for (float& g : peak_) g = 0;
  for (float& g : high_) g = 0;
  highHops_ = 0;
  lowEchoRun_ = false;
  peakTotal_ = highTotal_ = 0;
  highFar_.hops = peakFar_.hops = 0;
  peakFloor_ = 0;
  echoCorr_ = 0;
  dtHops_ = 0;
  dtHop_ = false;
  for (auto& lag : cap_)
    for (float& c : lag) c = kErlInit;
  head_ = 0;
  nowMs_ = runMs_ = quietMs_ = strongMs_ = 0;
  creditMs_ = runPeakLog_ = 0;
  runHops_ = runPeakAt_ = 0;
  micFell_ = false;
  markMs_ = lastMs_ = -1;
  refActiveHops_ = agentRunHops_ = 0;
  trustedHops_ = matureHops_ = 0;
  firstLag_ = -1;
  std::memset(tested_, 0, sizeof tested_);
  std::memset(onsetRow_, 0, sizeof onsetRow_);
  std::memset(late_, 0, sizeof late_);
  pauseRows_ = kOnsetPauseRows;  // the first utterance follows silence
  activeHops_ = inactiveHops_ = 0;
  activityMasked_ = true;
  testedLags_ = 0;
  fired_ = false;
  std::memset(runWindow_, 0, sizeof runWindow_);
  windowHead_ = 0;
  overPeakShare_ = 0;
  runGapless_ = false;
  nearBarHops_ = 0;
  echoAudibleHops_ = 0;
  if (cancelEcho_) canceller_.Reset();
  wave_.Reset();
  waveLag_ = -10;
  waveAge_ = 0;
  waveFollows_ = false;
}

namespace {
// log2 to 1.3e-3 (0.004 dB; exponent bits + a cubic on the mantissa): the shapes only feed a correlation,
// and 32 std::log calls per hop were a fifth of the detector's time.
inline float FastLog2(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const float e = static_cast<float>(static_cast<int32_t>(bits >> 23) - 127);
  bits = (bits & 0x007FFFFFu) | 0x3F800000u;  // mantissa in [1, 2)
  float m;
  std::memcpy(&m, &bits, sizeof m);
  return e + (((0.15391353f * m - 1.02949275f) * m + 3.01073029f) * m - 2.13381654f);
}
}  // namespace

void BargeInDetector::Shape(const float* pow, float* out) {
  float mean = 0, norm = 0;
  // Band powers are positive (the analyzer adds a floor); the scale of the log cancels below.
  for (int b = 0; b < kBands; ++b) { out[b] = FastLog2(pow[b]); mean += out[b]; }
  mean *= 1.0f / kBands;
  for (int b = 0; b < kBands; ++b) { out[b] -= mean; norm += out[b] * out[b]; }
  const float inv = norm > 1e-6f ? 1.0f / std::sqrt(norm) : 0.f;
  for (int b = 0; b < kBands; ++b) out[b] *= inv;
}

VC_MULTIVERSION
float BargeInDetector::HopProbability(const float* mic, const float* judged, const float* micFloor,
                                      const float* refBands) {
  std::memcpy(ring_[head_], refBands, sizeof(float) * kBands);
  Shape(refBands, shape_[head_]);
  float micStep;  // the sign of the mic's level change since the last hop (0: under 0.3 dB)
  {
    float refE = 0, micE = 0;
    int loud = 0;
    for (int b = 0; b < kBands; ++b) {
      refE += refBands[b];
      micE += mic[b];
      loud += refBands[b] >= 30.f * micFloor[b] ? 1 : 0;
    }
    const float refLog = FastLog2(refE), micLog = FastLog2(micE);
    const float rise = refLog - refLog_;
    const int prevRow = head_ ? head_ - 1 : hist_ - 1;
    audible_[head_] = loud >= 4;
    onsetRow_[head_] = audible_[head_] && pauseRows_ >= kOnsetPauseRows;
    pauseRows_ = audible_[head_] ? 0 : pauseRows_ + 1;
    // Only level changes from audible to audible count: an onset out of silence coincides with
    // the caller's as often as with the echo's.
    refStep_[head_] = audible_[head_] && audible_[prevRow] && std::abs(rise) >= kEnvRise ? (rise > 0 ? 1.f : -1.f) : 0.f;
    refLog_ = refLog;
    const float dMic = micLog - micLog_;
    micStep = std::abs(dMic) < kEnvMicRise ? 0.f : dMic > 0 ? 1.f : -1.f;
    micFell_ = dMic < -kCreditFallLog2;
    micDropLog_ = -dMic;
    micLog_ = micLog;
  }
  const int newest = head_;
  head_ = (head_ + 1) % hist_;
  // The window's loudest reference and, until an echo has shown up, the bound with each lag's
  // gain capped by what that lag has shown (see LearnCaps): a line without echo stops masking
  // the caller within a second. Caps only apply to the whole window (no delay trusted yet).
  const bool caps = !echoSeen_;
  float maxRef[kBands], capped[kBands];
  {
    // Lag k is ring row newest - k (mod hist_); 8 bands at a time.
    v8f mx0 = {0}, mx1 = {0}, cp0 = {0}, cp1 = {0};
    if (caps) {
      MarkLateLags(newest);
      const v8f e0 = LoadU8(erl_), e1 = LoadU8(erl_ + 8);
      for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1) {
        const v8f r0 = LoadU8(ring_[row]), r1 = LoadU8(ring_[row] + 8);
        mx0 = Max8(mx0, r0);
        mx1 = Max8(mx1, r1);
        const float use = late_[k] ? 0.f : 1.f;  // see kLateActiveHops
        cp0 = Max8(cp0, Min8(e0, LoadU8(cap_[k])) * r0 * use);
        cp1 = Max8(cp1, Min8(e1, LoadU8(cap_[k] + 8)) * r1 * use);
      }
    } else {
      for (int row = 0; row < hist_; ++row) {  // the maximum takes the rows in any order
        mx0 = Max8(mx0, LoadU8(ring_[row]));
        mx1 = Max8(mx1, LoadU8(ring_[row] + 8));
      }
    }
    std::memcpy(maxRef, &mx0, sizeof mx0);
    std::memcpy(maxRef + 8, &mx1, sizeof mx1);
    std::memcpy(capped, &cp0, sizeof cp0);
    std::memcpy(capped + 8, &cp1, sizeof cp1);
  }
  {
    // The agent's audio within the echo window: the caller scorer's warm-up leaves speech alone.
    float refTotal = 0;
    for (int b = 0; b < kBands; ++b) refTotal += maxRef[b];
    caller_.AgentPlaying(refTotal > kAgentPlayingPower);
  }
  // Echo delay: the lag whose reference spectral shape best matches the mic,
  // learned only while the reference is loud and the mic hears something.
  float refAct = 0, micAct = 0;
  for (int b = 0; b < kBands; ++b) {
    refAct += maxRef[b] * erl_[b] > micFloor[b] ? 1.f : 0.f;
    micAct += mic[b] > 4.f * micFloor[b] ? 1.f : 0.f;
  }
  bool echoLike = false;  // the mic has the shape of the reference at the trusted delay
  shapeLag_ = -1;
  float corrNow = 0;      // best instantaneous shape match over the lags, above their mean
  if (refAct >= 4 && micAct >= 4) {
    float m[kBands], now[kMaxHist], nowMean = 0, top = -1.f;
    Shape(mic, m);
    const v8f m0 = LoadU8(m), m1 = LoadU8(m + 8);
    int heard = 0;
    float heardMean = 0;
    for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1) {
      now[k] = HSum8(m0 * LoadU8(shape_[row]) + m1 * LoadU8(shape_[row] + 8));
      nowMean += now[k];
      if (audible_[row]) { heardMean += now[k]; ++heard; }
    }
    nowMean /= hist_;
    heardMean /= std::max(1, heard);
    // For the delay, a lag whose reference was silent cannot hold the echo: it counts as the
    // mean of the audible ones. Its flat shape matches nothing, and with such lags in the mean any
    // speech (the caller's too: synthetic voices match any speech lag by 0.5-0.8) stood out at
    // some speech lag in the first maxEchoDelayMs of an utterance. (corrNow keeps the mean over
    // all lags: the double-talk test needs it to take an echo's onset for echo.)
    // env_ learns only on hops where the lag's reference moved (step +-1; 0 leaves it).
    for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1) {
      corr_[k] += 0.03f * ((audible_[row] ? now[k] : heardMean) - corr_[k]);
      top = std::max(top, now[k]);
      const float step = refStep_[row];
      env_[k] += kEnvRate * step * step * (step * micStep - env_[k]);
    }
    // Echo-likeness in units of its threshold: any lag until a delay is trusted (the best of
    // many lags matches speech by chance, so the bar is higher), then only the lags around it.
    corrNow = (top - nowMean) / kDtCorr0;
    int best = 0;
    float mean = 0;
    for (int k = 0; k < hist_; ++k) { mean += corr_[k]; if (corr_[k] > corr_[best]) best = k; }
    mean /= hist_;
    // Once a delay was trusted (caps off), a hop where no lag stands out keeps it: with silent
    // lags no longer pulling the mean down that is most hops, and the bound fell back to the
    // window's loudest reference times an erl that a crowd or music had taught, masking callers
    // for the rest of the call (sweep, late in the call, 16 kHz tuning / held-out misses 8 / 13 -> 3 / 9).
    const int kept = delayHops_;
    delayHops_ = corr_[best] > 0.25f && corr_[best] - mean > 0.1f ? best : echoSeen_ ? delayHops_ : -1;
    // A trusted delay moves more than a hop only to a lag where the mic's waveform follows the
    // reference, as a jump must (kWaveFollows): at the start of an utterance, before its echo
    // arrives, the true lag still holds the silence before it and sinks to the mean, while a
    // caller talking over the first hops matches their shapes; the bound then followed the
    // agent's fresh speech and masked the caller (live call "echo 310 ms -9 dB": 681 ms).
    if (echoSeen_ && kept >= 0 && std::abs(delayHops_ - kept) > 1 && !WaveFollows(delayHops_)) delayHops_ = kept;
    if (delayHops_ >= 0 && !echoSeen_) {
      // The first delay trusted turns the per-lag caps off for the call and blocks the
      // double-talk test: the mic's level must also have followed the reference's there.
      float env = -1.f;
      for (int k = std::max(0, best - 1); k <= std::min(hist_ - 1, best + 1); ++k) env = std::max(env, env_[k]);
      if (env < kEnvTrust) delayHops_ = -1;
    }
    if (delayHops_ >= 0) {
      float atDelay = 0;
      for (int k = std::max(0, delayHops_ - 1); k <= std::min(hist_ - 1, delayHops_ + 1); ++k) atDelay = std::max(atDelay, now[k]);
      echoLike = atDelay - nowMean > kEchoLike;
      corrNow = (atDelay - nowMean) / kDtCorr;
      // The echo moved (a jitter buffer that ran dry plays the rest later): the mic has the
      // reference's shape at another lag, hop after hop. The smoothed correlation takes ~1 s
      // to follow, and meanwhile the echo at the new lag counted as the caller.
      int kNow = 0;
      for (int k = 1; k < hist_; ++k) if (now[k] > now[kNow]) kNow = k;
      shapeLag_ = kNow;
      if (!echoLike && now[kNow] - nowMean > kEchoLike && std::abs(kNow - delayHops_) > 1) {
        jumpHops_ = std::abs(kNow - jumpLag_) <= 1 ? jumpHops_ + 1 : 1;
        jumpLag_ = kNow;
        if (jumpHops_ >= 2 && !WaveFollows(kNow)) jumpHops_ = 1;
        if (jumpHops_ >= kJumpHops) {
          corr_[kNow] = std::max(corr_[kNow], corr_[delayHops_] + 0.05f);
          delayHops_ = kNow;  // not echoLike: the caller may be what matched, the gain must not creep
          jumpHops_ = 0;
        }
      } else {
        jumpHops_ = 0;
      }
    }
  }
  // With a trusted delay the echo bound uses the reference around that lag
  // (+-1 hop for sub-hop delays); otherwise the whole window's maximum.
  const int first = delayHops_ >= 0 ? std::max(0, delayHops_ - 1) : 0;
  const int last = delayHops_ >= 0 ? std::min(hist_ - 1, delayHops_ + 1) : hist_ - 1;
  if (delayHops_ >= 0 && !echoSeen_) firstLag_ = delayHops_;
  if (delayHops_ >= 0) echoSeen_ = true;
  if (echoSeen_ && trustedHops_ < kErlFirstHops) ++trustedHops_;
  if (echoSeen_ && refActiveHops_ > 0 && matureHops_ < kErlMatureHops) ++matureHops_;
  float sel[kBands] = {0}, extra[kBands];
  if (delayHops_ < 0) {
    std::memcpy(sel, maxRef, sizeof sel);
  } else {
    for (int k = first; k <= last; ++k) {
      const float* r = ring_[(newest - k + hist_) % hist_];
      for (int b = 0; b < kBands; ++b) sel[b] = std::max(sel[b], r[b]);
    }
    // A lag the echo may have moved to (seen, not yet trusted) bounds it too meanwhile.
    if (jumpHops_ >= 2) {
      for (int k = std::max(0, jumpLag_ - 1); k <= std::min(hist_ - 1, jumpLag_ + 1); ++k) {
        const float* r = ring_[(newest - k + hist_) % hist_];
        for (int b = 0; b < kBands; ++b) sel[b] = std::max(sel[b], r[b]);
      }
    }
  }
  for (int b = 0; b < kBands; ++b) extra[b] = margin_ * (echoSeen_ ? erl_[b] * sel[b] : capped[b]);
  refActiveHops_ = refAct >= 2 ? 30 : std::max(0, refActiveHops_ - 1);
  agentRunHops_ = refActiveHops_ > 0 ? agentRunHops_ + 1 : 0;
  if (cancelEcho_) {
    // The canceller runs while an echo the mic can hear may be on the line (kAecAudible).
    float echo = 0, floor = 0;
    for (int b = 0; b < kBands; ++b) { echo += erl_[b] * sel[b]; floor += micFloor[b]; }
    echoAudibleHops_ = echoSeen_ && echo >= kAecAudible * floor ? 30 : std::max(0, echoAudibleHops_ - 1);
  }
  // The caller is judged on what the canceller left when it has earned it (EchoCancelStage::
  // Credited), against the echo bound times what it is known to leave of the echo; otherwise on
  // the mic as heard.
  const bool cancelled = judged != mic;
  const bool credited = cancelled && jumpHops_ < 2 && canceller_.Credited(mic, judged, erl_, sel);
  const float* heard = credited ? judged : mic;
  float bound[kBands];
  for (int b = 0; b < kBands; ++b) bound[b] = credited ? extra[b] * canceller_.credit()[b] : extra[b];
  {
    // Before Score updates them: what this hop's mic is measured against.
    const float* fl = caller_.floor();
    const float* bg = caller_.background();
    float num = 0, noise = 0, den = 0;
    for (int b = 0; b < kBands; ++b) {
      num += heard[b];
      noise += std::max(fl[b], bg[b]);
      den += std::max(fl[b], bg[b]) + bound[b];
    }
    excess_ = num / std::max(den, 1e-6f);
    const float lineBar = LoudLineBar();
    hopHeard_ = num;
    hopNoise_ = noise + lineBar;
    hopBound_ = den - noise;
    float pk = lineBar;
    for (int b = 0; b < kBands; ++b) pk += bound[b];
    overPeak_ = num >= pk;
    overPeakShare_ = num / std::max(pk, 1e-6f);
    FollowActivity(num >= kActiveOverNoise * noise && num >= lineBar);
  }
  const float p = caller_.Score(heard, bound);
  // A muted microphone's zeros (the scorer holds its floor over them: SpeechScorer::
  // HoldOverZeros) are neither the caller nor the echo: no evidence, and the echo gain does not
  // learn that the path is gone (after a mute the echo came back unbounded and passed for the
  // caller). The line's levels and the per-lag caps follow them down as before. Other zeros (a
  // stream's first frames, the gaps of a line with silence suppression or of a digital caller)
  // count as before: there the echo gain learning that no echo is on the line lets the first
  // words through at once (a digital caller after 1.5 s of zeros: 100 ms, 180 ms without).
  if (caller_.holding()) {
    dtHop_ = false;
    if (!fired_ && refActiveHops_ == 0 && runMs_ < kHighRunMs) LearnHigh(mic, sel);
    RestartLevels(mic, sel);
    if (!echoSeen_ && (capTurn_ = !capTurn_)) LearnCaps(mic, micFloor, maxRef, newest, p < 0.3f);
    return p;
  }
  if (cancelled) canceller_.LearnCredit(p < 0.3f, mic, judged, sel, micFloor);
  echoCorr_ += 0.4f * (corrNow - echoCorr_);
  dtHop_ = DoubleTalk(mic, micFloor, sel, echoCorr_, p < 0.3f);
  if (!fired_ && refActiveHops_ == 0 && runMs_ < kHighRunMs) LearnHigh(mic, sel);
  RestartLevels(mic, sel);
  // Once per 20 ms is plenty for the caps, and halves their cost. They may fall while the
  // caller speaks too (mic/ref bounds a lag's gain whoever else is in the mic), not rise.
  if (!echoSeen_ && (capTurn_ = !capTurn_)) LearnCaps(mic, micFloor, maxRef, newest, p < 0.3f);
  if (p < 0.3f && testedLags_ < hist_) {
    for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1)
      if (audible_[row] && !tested_[k]) { tested_[k] = true; ++testedLags_; }
  }
  if (p < 0.3f) {
    // Learn the echo return loss while the caller is quiet: rise quickly to
    // the observed mic/ref ratio, decay when the echo is weaker. The echo is what the mic
    // carries over the line's 90th percentile (high_), not over its floor: a 10 ms hop of white
    // noise in a narrow band often sits 2-3 dB over its floor, and those hops taught the gain
    // the noise, bounding a line without echo 7-12 dB over the noise (carrier callers 6 dB over
    // white noise missed). Replayed calls, tuning half, misses web / carrier 4 / 2 -> 3 / 1,
    // p95 760 / 760 -> 340 / 340 ms; the sweep's false interruptions 6 / 9 -> 6 / 10.
    int echoLikeWave = -1;  // kErlWaveRise: asked once per hop, when a band would rise that far
    for (int b = 0; b < kBands; ++b) {
      if (sel[b] < 30.f * micFloor[b]) continue;  // reference too weak here
      float r = std::max(0.f, mic[b] - std::max(micFloor[b], high_[b])) / sel[b];
      float& g = erl_[b];
      if (r > kErlWaveRise * g && delayHops_ >= 0 && delayHops_ + kWaveDtSpanHops + 1 < hist_) {
        if (echoLikeWave < 0) echoLikeWave = EchoWaveMatch() >= kWaveFollows ? 1 : 0;
        if (!echoLikeWave) r = g;
      }
      const float up = g + 0.2f * (r - g);
      g = r > g ? (p >= kErlRiseQuiet ? g : matureHops_ >= kErlMatureHops ? std::min(up, g * kErlMatureRise) : up)
                : g * (r < kErlFarBelow * g ? kErlFastDecay : 0.99f);
      g = std::min(kErlMax, std::max(kErlMin, g));
      if (!echoSeen_ && testedLags_ < hist_) g = std::max(g, kErlInit);  // see kErlInit
    }
  } else if (echoLike) {
    // Energy beyond the bound with the reference's shape at the delay: the echo path got
    // louder. Creep up (+0.09 dB per hop) rather than jump, as the caller may be in it too
    // (old: only hops under the bound taught it, and a path 20 dB louder was never learned).
    bool learning = trustedHops_ < kErlFirstHops && echoCorr_ >= kErlFirstCorr && std::abs(delayHops_ - firstLag_) <= 1;
    if (learning) {
      float env = -1.f;
      for (int k = std::max(0, delayHops_ - 1); k <= std::min(hist_ - 1, delayHops_ + 1); ++k) env = std::max(env, env_[k]);
      learning = env >= kEnvTrust;
    }
    for (int b = 0; b < kBands; ++b) {
      if (sel[b] < 30.f * micFloor[b]) continue;
      const float r = (mic[b] - micFloor[b]) / sel[b];
      if (r <= erl_[b]) continue;
      erl_[b] = std::min(kErlMax, learning ? erl_[b] + 0.2f * std::max(0.f, kErlFirstShare * r - erl_[b])
                                           : std::min(r, erl_[b] * kErlCreep));
    }
  }
  return p;
}

// minDurationMs, or less of it on a line whose levels are known and that has no echo path (see
// kKnownLineHops).
float BargeInDetector::RequiredMs() const {
  const bool known = highHops_ >= kKnownLineHops && lowEchoRun_ && !echoSeen_;
  return known ? kKnownLineShare * o_.minDurationMs : static_cast<float>(o_.minDurationMs);
}

// Whether this hop, under the evidence bar, still counts for the run it follows (see kNearBarExcess):
// `runCreditMs` is the run's credit before it.
bool BargeInDetector::NearBarHop(float p, float runCreditMs) const {
  return runGapless_ && nearBarHops_ < kNearBarHops && runCreditMs >= RequiredMs() - kNearBarShortMs &&
         p >= kNearBarProbability && excess_ >= kNearBarExcess && overPeakShare_ >= kNearBarOverPeak;
}

void BargeInDetector::ProcessFrame(const int16_t* mic, const int16_t* ref, VadResult* vad,
                                   BargeInResult* r) {
  vad_.ProcessFrame(mic, vad);
  const int refHop = ref_.hopSamples();
  float sum = 0;
  int evidence = 0, strong = 0;
  float credit = 0;
  bool dt = false;
  const int micHop = static_cast<int>(frameSamples()) / hops_;
  for (int h = 0; h < hops_; ++h) {
    float rb[kBands];
    const int16_t* refNow = ref ? ref + h * refHop : nullptr;
    ref_.ProcessHop(refNow ? refNow : kSilence, rb);
    wave_.Push(mic + h * micHop, refNow);
    ++waveAge_;
    const float* bands = vad_.hopBands(h);
    // Once the band tracker trusts a delay, the echo cancelled there (see EchoCancelStage).
    float left[kBands];
    const bool cancelled = cancelEcho_ && canceller_.Hop(mic + h * micHop, refNow, bands, delayHops_, refActiveHops_ > 0,
                                                          echoAudibleHops_ > 0, fired_, left);
    const float* heard = cancelled ? left : bands;
    // The echo-aware scorer's floor, once settled: it does not rise under the echo bound, where
    // the plain VAD's floor climbed onto a caller masked by it (+25 dB in 300 ms).
    const float hp = HopProbability(bands, heard, caller_.hops() > 20 ? caller_.floor() : vad_.noiseFloor(), rb);
    if (cancelEcho_) canceller_.Judged(hp < 0.3f);
    sum += hp;
    const bool tail = BurstTail();
    const bool heardOver = caller_.rawLlr() >= kEvidenceLlr && overPeak_;
    const bool energy = heardOver && excess_ >= kEvidenceExcess;
    const bool nearBar = !energy && NearBarHop(hp, (runMs_ > 0 ? creditMs_ : 0.f) + credit * 10);
    const bool waveHop = !dtHop_ && !energy && WaveformDoubleTalk(hp);
    const bool doubleTalk = dtHop_ || waveHop;
    const bool echo = !tail && !fired_ && (dtHop_ || energy || nearBar) && refActiveHops_ > 0 && WaveformEcho();
    // A burst's tail belongs to the stretch it ends (a horn under a slam comes after it).
    const bool heardHop = !echo && (doubleTalk || energy || nearBar);
    const bool nearBarOnly = heardHop && nearBar && !doubleTalk;
    const bool underOnset = UnderLoudOnset(heardHop, energy, bands, nearBarOnly);  // every hop: it counts the gaps
    const bool counted = heardHop && !tail && !underOnset;
    nearBarHops_ = counted && nearBarOnly ? nearBarHops_ + 1 : 0;
    if (!counted) runGapless_ = false;
    else if (runMs_ == 0 && evidence == 0) runGapless_ = true;  // a run starts here
    float hopCredit = 0;
    if (counted) {
      ++evidence;
      if (heardOver && excess_ >= kStrongExcess) ++strong;
      if (runMs_ == 0 && evidence == 1) {
        runPeakLog_ = micLog_;
        runHops_ = runPeakAt_ = 0;
        lowEchoRun_ = true;
      } else {
        ++runHops_;
        if (micLog_ > runPeakLog_) {
          runPeakLog_ = micLog_;
          runPeakAt_ = runHops_;
        }
      }
      // A double-talk hop sits under the bound: its share says nothing (see kKnownLineEchoShare).
      lowEchoRun_ = lowEchoRun_ && (!energy || hopBound_ < kKnownLineEchoShare * hopHeard_);
      const bool ramped = runPeakAt_ >= kCreditRampHops;
      hopCredit = waveHop ? (waveClear_ < kWaveDtClear ? 1.f + kCreditBonus : 1.f)
                : heardOver && (!micFell_ || ramped) && (echoSeen_ || echoCorr_ < 1.f) ? EvidenceWeight(excess_) : 1.f;
      credit += hopCredit;
    }
    runWindow_[(windowHead_ + h) % kRunWindowHops] = hopCredit * 10;
    dt = dt || doubleTalk;
    if (hopTrace_) {
      const int flags = (counted ? kHopEvidence : 0) | (energy ? kHopEnergy : 0) | (waveHop ? kHopWaveform : 0) |
                        (dtHop_ ? kHopBandResidual : 0) | (echo ? kHopEchoVeto : 0) | (tail ? kHopBurstTail : 0) |
                        (underOnset ? kHopUnderOnset : 0) | (echoSeen_ ? kHopEchoSeen : 0) |
                        (nearBarOnly ? kHopNearBar : 0);
      // The run's credit so far: creditMs_ is added to at the frame's end, and restarts with a run.
      const float runCredit = (runMs_ > 0 ? creditMs_ : 0.f) + credit * 10;
      const float values[] = {static_cast<float>(nowMs_ + h * 10), hp, caller_.rawLlr(), excess_, hopHeard_, hopNoise_,
                              hopBound_, static_cast<float>(delayHops_), runCredit, static_cast<float>(flags)};
      static_assert(sizeof values / sizeof values[0] == static_cast<int>(HopField::kCount), "vc/bargein_hop_fields.h");
      std::memcpy(hopTrace_ + h * static_cast<int>(HopField::kCount), values, sizeof values);
    }
  }
  const int frameMs = hops_ * 10;
  const float p = sum / hops_;
  const int evidenceMs = evidence * 10;
  const int64_t frameStart = nowMs_;
  nowMs_ += frameMs;
  r->events = 0;
  r->callerProbability = p;
  r->callerSpeech = p >= o_.threshold || dt;
  r->agentActive = refActiveHops_ > 0;
  // Duration counts only hops that are caller speech on their own evidence,
  // so the smoothed tail of a short loud burst cannot reach minDurationMs.
  const bool runs = r->callerSpeech && evidenceMs > 0;
  // The run's credit is what its last kRunWindowHops hops earned: hops before the run, and a frame
  // the run does not take, earn nothing.
  const bool starts = runs && runMs_ == 0;
  for (int k = starts ? hops_ : 0; k < (runs ? (starts ? kRunWindowHops : 0) : hops_); ++k)
    runWindow_[(windowHead_ + hops_ - 1 - k + kRunWindowHops) % kRunWindowHops] = 0;
  windowHead_ = (windowHead_ + hops_) % kRunWindowHops;
  if (runs) {
    if (runMs_ == 0) {
      markMs_ = frameStart;
      strongMs_ = 0;
    }
    runMs_ += evidenceMs;
    creditMs_ = 0;
    for (float c : runWindow_) creditMs_ += c;
    strongMs_ += strong * 10;
    quietMs_ = 0;
    if (!fired_ && (creditMs_ + kCreditSlackMs >= RequiredMs() || strongMs_ * 100 >= int64_t{kStrongPercent} * o_.minDurationMs)) {
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

// Echo-aware barge-in: decides whether the caller really speaks while the
// agent plays. The far-end reference (what the agent plays) bounds the echo
// expected in each band over the last maxEchoDelayMs; only energy above that
// bound (and above the noise floor) counts as caller speech, and only speech
// lasting minDurationMs raises an interruption.
#pragma once
#include <cstddef>
#include <cstdint>

#include "vc/bargein_hop_fields.h"
#include "vc/echo_cancel_stage.h"
#include "vc/status.h"
#include "vc/vad.h"
#include "vc/waveform_lag.h"

namespace vc {

struct BargeInOptions {
  int minDurationMs = 300;     // caller speech needed for an interruption (60% of it when loud: see kStrongExcess)
  float threshold = 0.5f;      // caller-speech probability threshold
  int maxEchoDelayMs = 300;    // longest echo path considered (spec: 20-200 ms)
  float echoMarginDb = 6.0f;   // headroom above the learned echo return loss
  int gapMs = 120;             // pause that resets the duration counter
  // Filter length of the sample-domain echo canceller (ms, 0: off, up to 64; see EchoCancelStage).
  // Off by default: it takes 30+ dB of echo on simulated lines and a median 18 dB on a live one,
  // but has not yet changed a live cut-in (docs/benchmarks-turns.md, round 11), and costs 10 us
  // per 20 ms frame at 16 kHz.
  int echoCancellerMs = 0;
};

enum BargeInEvent : int { kBargeInInterruption = 1, kBargeInEnd = 2 };

struct BargeInResult {
  float callerProbability = 0;
  bool callerSpeech = false;   // this frame counts as caller speech
  bool agentActive = false;    // the reference carried audio recently
  int events = 0;              // BargeInEvent bits
  int64_t interruptionMs = -1; // stream time the interrupting speech began
};

class BargeInDetector {
 public:
  // refRateHz may differ from the mic rate; band powers are rate independent.
  Status Init(int micRateHz, int refRateHz, int frameMs, const BargeInOptions& o,
              const VadOptions& vo = VadOptions());
  // mic: frameSamples(); ref: refFrameSamples() or null for silence.
  void ProcessFrame(const int16_t* mic, const int16_t* ref, VadResult* vad, BargeInResult* r);
  void Reset();
  size_t frameSamples() const { return vad_.frameSamples(); }
  size_t refFrameSamples() const { return static_cast<size_t>(ref_.hopSamples() * hops_); }
  int hopsPerFrame() const { return hops_; }
  // The next frames' hops are written to out (hopsPerFrame() x HopField::kCount floats per frame,
  // vc/bargein_hop_fields.h) until it is set to null.
  void TraceHops(float* out) { hopTrace_ = out; }

 private:
  static constexpr int kMaxHist = 101;  // 1 s of 10 ms hops
  static void Shape(const float* pow, float* out);
  // mic: the hop's band powers as heard; judged: the same after echo cancellation.
  float HopProbability(const float* mic, const float* judged, const float* micFloor, const float* refBands);
  void LearnCaps(const float* mic, const float* micFloor, const float* maxRef, int newest, bool quiet);

  float* hopTrace_ = nullptr;
  Vad vad_;
  BandAnalyzer ref_;
  // The sample-domain echo canceller at the tracked delay (see ProcessFrame), when the options
  // ask for one, and how long an echo the mic can hear may still be on the line.
  bool cancelEcho_ = false;
  EchoCancelStage canceller_;
  int echoAudibleHops_ = 0;
  SpeechScorer caller_;
  BargeInOptions o_;
  int hops_ = 0, hist_ = 0, head_ = 0;
  float ring_[kMaxHist][kBands];
  float shape_[kMaxHist][kBands];  // ref log-spectrum shapes (zero mean, unit norm)
  float corr_[kMaxHist];           // smoothed mic/ref shape correlation per lag
  bool audible_[kMaxHist];         // per ring row: that hop's reference was loud (speech, not silence)
  float refStep_[kMaxHist];        // per ring row: sign of that hop's reference level change (0: < 1.5 dB or silence)
  float env_[kMaxHist];            // per lag: smoothed agreement of the mic's level changes with the reference's there
  float refLog_ = 0, micLog_ = 0;  // last hop's log2 energies (reference, mic)
  bool micFell_ = false;           // the mic's level fell over kCreditFallLog2 since the last hop
  float micDropLog_ = 0;           // how far the mic's level fell since the last hop (log2 energy)
  // Per hop of the last 100 ms: the mic's log2 energy where it was far over the bound (see BurstTail).
  static constexpr int kBurstHops = 10;
  static constexpr float kNoBurst = -100.f;
  bool BurstTail();
  float burstLog_[kBurstHops];
  bool burstRamped_[kBurstHops];  // that hop's run rose into a voice (see kBurstRampLog2)
  int burstHead_ = 0;
  float burstDipLog_ = 0;  // the mic's lowest log2 energy since the last burst hop (see kBurstRiseLog2)
  // The current run of hops over the evidence bar: the louder of its first two hops and its
  // loudest (log2 energy, as micLog_), how many hops it has had and which was the loudest (see
  // kBurstRampLog2).
  struct LoudRun {
    float earlyLog = 0, peakLog = 0;
    int hops = 0, peakAt = 0;
  };
  LoudRun loud_;
  // The current stretch of candidate evidence hops (see kOnsetFallLog2): its loudest hop (log2
  // energy, as micLog_), the lowest hop since, the share of the loudest hop's energy the echo
  // bound expected, how many hops it has had, which of them was the loudest, hops since its last
  // one, whether a hop rose 6 dB over the lowest since the loudest (a new onset), whether the
  // loudest cleared the line's loud moments and the bound (an energy hop; see kNewLineHops), the
  // loudest hop's band shape, and whether every hop since has kept it (see kSteadyShapeCorr).
  struct Stretch {
    float peakLog = 0, dipLog = 0, peakEcho = 0;
    int hops = 0, peakAt = 0, since = 1000;
    bool rose = false, peakEnergy = false, steady = true;
    float shape[kBands] = {};
    // The last candidate hop's level and band shape, and how many hops in a row kept them.
    float lastLog = 0;
    float lastShape[kBands] = {};
    int heldHops = 0;
  };
  bool UnderLoudOnset(bool candidate, bool energy, const float* bands, bool nearBar);
  Stretch stretch_;
  float erl_[kBands];  // learned echo power gain ref -> mic per band
  float cap_[kMaxHist][kBands];  // per lag and band: the most echo gain that lag has shown
  bool echoSeen_ = false;        // a delay was trusted once: the caps are off for the call
  int firstLag_ = -1;            // the first delay trusted, in hops
  // Per lag: it has carried the agent's audible speech on a hop where the caller was judged
  // quiet, and how many have (see kErlInit).
  bool tested_[kMaxHist];
  int testedLags_ = 0;
  // Lags an utterance reached only after the caller had started (see kLateActiveHops): per ring
  // row, the agent started there after a pause; per lag, the row that reached it found the mic
  // already busy. Left out of the bound until the line falls quiet.
  bool onsetRow_[kMaxHist];
  bool late_[kMaxHist];
  void MarkLateLags(int newest);
  void FollowActivity(bool active);
  int pauseRows_ = 0;       // reference rows in a row that were not audible
  int activeHops_ = 0;      // mic hops in a row well over the line's noise
  int inactiveHops_ = 0;    // and not
  bool activityMasked_ = true;  // this activity began under the echo bound (a masked caller)
  int trustedHops_ = 0;          // hops since a delay was first trusted (counts to kErlFirstHops)
  int matureHops_ = 0;  // hops of the agent's speech since a delay was first trusted (see kErlMatureHops)
  bool capTurn_ = false;         // caps learn every other hop
  float margin_ = 4.f;
  int64_t nowMs_ = 0, runMs_ = 0, quietMs_ = 0, markMs_ = -1, lastMs_ = -1;
  int64_t strongMs_ = 0;  // of runMs_: evidence far over the bar (kStrongExcess)
  float creditMs_ = 0;    // runMs_ weighted by how far each hop is over the bar (EvidenceWeight)
  // The run's loudest evidence hop (log2 energy, as micLog_) and how many evidence hops after the
  // run's first it came (see kCreditRampHops).
  float runPeakLog_ = 0;
  int runHops_ = 0, runPeakAt_ = 0;
  int refActiveHops_ = 0, delayHops_ = -1;
  int agentRunHops_ = 0;  // hops since the agent's audio resumed after a pause (refActiveHops_ at 0)
  int jumpLag_ = -10, jumpHops_ = 0;  // a lag the echo seems to have moved to, and for how many hops
  // Whether the mic's waveform follows the reference at a lag (see WaveFollows), and the last
  // answer: for which lag, how many hops ago.
  bool WaveFollows(int lag);
  WaveformLag wave_;
  int waveLag_ = -10, waveAge_ = 0;
  bool waveFollows_ = false;
  bool fired_ = false;
  // Every evidence hop of the current run had little echo expected (see kKnownLineEchoShare).
  bool lowEchoRun_ = false;
  float RequiredMs() const;  // the credit that raises an interruption now
  bool NearBarHop(float p, float runCreditMs) const;
  float excess_ = 0;  // last hop: mic power over (noise background + expected echo)
  // Per-band residual double-talk test (see DoubleTalk in bargein_double_talk.cc).
  bool DoubleTalk(const float* mic, const float* micFloor, const float* sel, float echoCorr, bool quiet);
  float dtGain_[kBands];  // per band echo power gain at the tracked delay, learned by NLMS
  float peak_[kBands];    // per band peak level of the line beyond the echo, caller silent
  // Per band running 90th percentile of the line beyond the echo while none is expected (see LearnHigh).
  void LearnHigh(const float* mic, const float* sel);
  float high_[kBands];
  int highHops_ = 0;  // hops it has learned, up to kHighFastHops
  // The same two levels of the line's total over the bands (see LoudLineBar).
  float peakTotal_ = 0, highTotal_ = 0;
  float LoudLineBar() const;
  // The line far under one of its levels (peak_, high_) for a while restarts it from there (see
  // RestartLevels).
  struct FarRun {
    int hops = 0;          // consecutive hops the line has sat far under the level
    float max[kBands];     // per band, its loudest hop meanwhile
  };
  void RestartLevels(const float* mic, const float* sel);
  static bool RestartLevel(const float* x, float* level, FarRun& run);
  float FloorSum() const;
  FarRun highFar_, peakFar_;
  float peakFloor_ = 0;  // the scorer's floor (sum over bands) when peak_ last rose
  float echoCorr_ = 0;    // mic/ref shape match over the lags' mean (in units of its threshold), ~50 ms
  bool overPeak_ = true;  // last hop: the mic is over the line's peaks plus the echo bound
  float overPeakShare_ = 0;  // last hop: the mic over (the line's peaks + the echo bound)
  bool runGapless_ = false;  // every hop since this run's first one was counted as evidence
  int nearBarHops_ = 0;      // near-bar hops counted in a row (see kNearBarExcess)
  // A run's credit counts its last 450 ms only (why: bargein_tuning.h, after kNearBarHeldCorr).
  static constexpr int kRunWindowHops = 45;
  float runWindow_[kRunWindowHops] = {};  // the credit (ms) of the run's last hops (kRunWindowHops)
  int windowHead_ = 0;  // where this frame's first hop goes in runWindow_
  int dtHops_ = 0;        // consecutive hops with a residual the echo does not explain
  bool dtHop_ = false;    // last hop: the double-talk test declares the caller
  // Waveform double-talk test (see kWaveDtFloor in bargein_tuning.h), given the caller scorer's p; the
  // line's echo-only waveform match (its low percentile) and a turn counter for learning it.
  bool WaveformDoubleTalk(float p);
  bool WindowDoubleTalk(float p);  // the same before a delay is trusted, over the whole window
  bool WaveformEcho();             // the mic follows the reference somewhere: echo (kEchoVeto)
  float DelayWaveMatch();          // the waveform match around the trusted delay
  float EchoWaveMatch();           // and at the lag the mic's shape matches (a jump)
  float echoWaveLow_ = 0.5f;
  int echoWaveTurn_ = 0;
  float waveClear_ = 1.f;  // last waveform hop: its best match over the bar
  // Last hop: the mic heard, the line's noise and loud moments, and the echo bound (band sums).
  float hopHeard_ = 0, hopNoise_ = 0, hopBound_ = 0;
  int shapeLag_ = -1;  // last hop: the lag whose reference shape the mic matched best (trusted delay only)
};

}  // namespace vc

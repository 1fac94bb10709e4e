// Voice activity detection: a 16-band IIR filterbank (SIMD across bands) per
// 10 ms hop, per-band adaptive noise floors and a statistical (Sohn-style)
// likelihood ratio with decision-directed SNR, mapped to a probability, plus a
// debounced quiet/starting/speaking/stopping state machine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "vc/simd.h"
#include "vc/status.h"

namespace vc {

constexpr int kBands = 16;

// Band powers of one 10 ms hop (mean square per sample, per band).
class BandAnalyzer {
 public:
  Status Init(int sampleRateHz);
  void ProcessHop(const int16_t* x, float* bandPow);
  int hopSamples() const { return hop_; }

 private:
  int hop_ = 0;
  v8f b0_[2], a1_[2], a2_[2], y1_[2], y2_[2];
  float x1_ = 0, x2_ = 0;
};

// Per-band noise floor + likelihood ratio -> speech probability of a hop.
class SpeechScorer {
 public:
  void Reset();
  // Starts settled (no warm-up) on a known noise floor and background.
  void ResumeFrom(const float* floor, const float* background);
  // noiseExtra (may be null) adds a known interference power per band (echo).
  float Score(const float* bandPow, const float* noiseExtra);
  const float* floor() const { return floor_; }
  float rawLlr() const { return raw_; }  // unsmoothed evidence of the last hop
  int hops() const { return hops_; }
  // The last hop was digital zeros after a long signal (a muted microphone): the floor held.
  bool holding() const { return holding_; }
  const float* background() const { return bg_; }
  // After the warm-up, on a hop that looks like speech, the floor rises at most this factor
  // (power; 0: no limit, as the VAD's own scorer). Kept across Reset.
  void LimitSpeechRise(float factor) { speechRise_ = factor; }
  // With LimitSpeechRise set: whether the agent's audio is on the line (or its echo may still
  // be). While it is, a hop that looks like speech does not warm the floor up either (see Score).
  void AgentPlaying(bool playing) { agentPlaying_ = playing; }

 private:
  bool HoldOverZeros(bool zeros);
  bool FlatRise(const float* bandPow) const;
  void Seed(const float* bandPow, float scale);
  void Open(const float* bandPow);
  float floor_[kBands] = {0}, clean_[kBands] = {0};
  bool holding_ = false;  // zeros after a long signal: the floor holds still (HoldOverZeros)
  bool opened_ = false;   // a hop that was not digital zeros has been scored
  int8_t openingHops_ = 0;  // hops left in which a rise shows the opening seed was a word
  float seedPow_ = 0;       // the opening seed's power, summed over bands
  int16_t signalHops_ = 0;  // hops in a row that were not digital zeros, up to kHoldAfterHops
  float speechRise_ = 0;
  bool agentPlaying_ = false;
  // Background level per band: a running quantile of the band power (steps up and down by
  // fixed factors), sits near a third of the recent level distribution. For stationary noise
  // it is close to the floor; over babble it is near the crowd's typical level, far above its
  // minima, so the crowd alone no longer scores as speech.
  float bg_[kBands] = {0};
  int bgQuietHops_ = 0;  // hops in a row 10 dB under the background (the crowd stopped)
  // Minimum statistics guard: band minima of the last 3 half-second blocks.
  float blockMin_[kBands] = {0}, slotMin_[3][kBands] = {{0}};
  int blockHops_ = 0, slot_ = 0;
  float smooth_ = 0, prob_ = 0, raw_ = 0;
  int hops_ = 0;
};

constexpr float kEvidenceLlr = 1.0f;  // per-hop likelihood ratio that is speech alone

enum class VadState : int { kQuiet = 0, kStarting = 1, kSpeaking = 2, kStopping = 3 };

struct VadOptions {
  float threshold = 0.5f;  // probability that counts as speech
  int startMs = 60;        // speech must last this long to enter speaking
  int stopMs = 400;        // silence must last this long to leave speaking
};

enum VadEvent : int { kVadSpeechStart = 1, kVadSpeechEnd = 2 };

struct VadResult {
  float probability = 0;
  VadState state = VadState::kQuiet;
  int events = 0;          // VadEvent bits
  int64_t speechStartMs = -1;  // stream time the current/last speech began
  int64_t speechEndMs = -1;    // stream time the last speech ended
};

// Debounced state machine on a per-frame probability.
class VadStateMachine {
 public:
  Status Init(const VadOptions& o);
  void Reset();
  // evidenceMs: part of this frame whose unsmoothed evidence alone is speech.
  void Update(float prob, int frameMs, int evidenceMs, VadResult* r);

 private:
  VadOptions o_;
  VadState state_ = VadState::kQuiet;
  int64_t nowMs_ = 0, runMs_ = 0, evidenceMs_ = 0, markMs_ = 0, startMs_ = -1, endMs_ = -1;
};

class Vad {
 public:
  Status Init(int sampleRateHz, int frameMs, const VadOptions& o = VadOptions());
  // frame holds frameSamples() samples.
  void ProcessFrame(const int16_t* frame, VadResult* r);
  void Reset();
  size_t frameSamples() const { return static_cast<size_t>(hops_ * an_.hopSamples()); }
  int frameMs() const { return hops_ * 10; }
  // Band powers of hop h of the last frame, and the noise floor (for barge-in).
  const float* hopBands(int h) const { return bands_[h]; }
  const float* noiseFloor() const { return scorer_.floor(); }
  float hopProbability(int h) const { return hopProb_[h]; }

 private:
  void Remember(const float* bands);
  void LookBack(VadResult* r);

  BandAnalyzer an_;
  SpeechScorer scorer_;
  VadStateMachine sm_;
  int hops_ = 0;
  // The stream's first second of band powers, kept until it is known whether the floor seeded
  // from the first hop was the line's noise or a word said as the stream opened (LookBack).
  std::unique_ptr<float[]> early_;
  int earlyHops_ = 0;
  float loudest_ = 0;  // power of the loudest kept hop, summed over bands
  float bands_[3][kBands];
  float hopProb_[3] = {0};
};

}  // namespace vc

// MediaChannel: the whole inbound hot path of one call in a single call per
// socket message: validate + resample to the processing rate + frame + VAD +
// echo-aware barge-in. All buffers are sized once in Init.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vc/bargein.h"
#include "vc/framer.h"
#include "vc/resampler.h"
#include "vc/vad.h"

namespace vc {

struct ChannelConfig {
  int inRateHz = 16000;    // caller PCM on the socket
  int procRateHz = 16000;  // VAD/ASR rate (8000 or 16000)
  int refRateHz = 16000;   // rate of the agent audio pushed as reference
  int frameMs = 20;
  size_t maxMessageBytes = 65536;
  ResamplerQuality quality = ResamplerQuality::kDefault;
  VadOptions vad;
  BargeInOptions bargeIn;
  // Agent audio held for the barge-in reference; older audio beyond it is dropped.
  int referenceBufferMs = 2000;
};

enum ChannelEvent : int {
  kChSpeechStart = 1,    // VAD entered speaking
  kChSpeechEnd = 2,      // VAD left speaking
  kChInterruption = 4,   // barge-in: caller speaks over the agent
  kChInterruptionEnd = 8,
};

struct ChannelResult {
  size_t frames = 0;       // frames written to output()
  int events = 0;          // ChannelEvent bits, OR of all frames
  VadState vadState = VadState::kQuiet;
  float lastProbability = 0, lastCallerProbability = 0;
  int64_t speechStartMs = -1, speechEndMs = -1, interruptionMs = -1;
  bool agentActive = false;
};

class MediaChannel {
 public:
  // externalOutput: the caller passes its own frame/probability buffers to Process
  // (maxFrames() each), so the channel does not allocate its own.
  Status Init(const ChannelConfig& c, bool externalOutput = false);
  Status Process(const uint8_t* msg, size_t nBytes, ChannelResult* r);
  // Same, writing frames and probabilities to caller buffers of maxFrames() frames.
  Status Process(const uint8_t* msg, size_t nBytes, ChannelResult* r, int16_t* out, float* prob,
                 float* callerProb);
  // Agent audio at refRateHz, pushed as it is played. Older audio beyond the
  // FIFO capacity (referenceBufferMs, default 2 s) is dropped.
  Status PushReference(const int16_t* ref, size_t n);
  void Reset();

  const int16_t* output() const { return out_.data(); }
  const float* probabilities() const { return prob_.data(); }
  const float* callerProbabilities() const { return callerProb_.data(); }
  size_t frameSamples() const { return frame_.frameSamples(); }
  size_t maxFrames() const { return maxFrames_; }
  // Tracing: from now on each Process() writes, for every frame it made, the barge-in detector's
  // hops to hopTrace() (HopField::kCount floats per hop, vc/bargein_hop_fields.h). Off by default
  // (its buffer is allocated when turned on).
  void TraceHops(bool on);
  const float* hopTrace() const { return trace_.data(); }
  size_t hopTraceSize() const { return trace_.size(); }
  int hopsPerFrame() const { return bi_.hopsPerFrame(); }

 private:
  static constexpr size_t kChunk = 2048;  // most input samples decoded/resampled per pass
  ChannelConfig c_;
  size_t chunk_ = kChunk;  // kChunk, or less when maxMessageBytes is smaller
  Resampler rs_;
  bool resample_ = false;
  Framer frame_;
  BargeInDetector bi_;
  std::vector<int16_t> pcm_, rsOut_, out_, refFifo_, refFrame_;
  std::vector<float> prob_, callerProb_, trace_;
  size_t maxFrames_ = 0, refHead_ = 0, refCount_ = 0;
};

}  // namespace vc

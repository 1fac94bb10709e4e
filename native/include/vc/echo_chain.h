// EchoChain: the echo pipeline's inbound work in one call per socket message:
// PCM16LE bytes -> fixed frames (partial frame carried) -> VAD per frame ->
// resampled to the output rate. Only one frame is buffered; the resampler's
// state is sized for one frame and its filter table is shared.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vc/resampler.h"
#include "vc/status.h"
#include "vc/vad.h"

namespace vc {

class EchoChain {
 public:
  Status Init(int inRateHz, int outRateHz, int frameMs, size_t maxMessageBytes,
              ResamplerQuality q = ResamplerQuality::kDefault, const VadOptions& vad = VadOptions());
  // Output samples one Push of maxMessageBytes can produce at most.
  size_t MaxOutputSamples() const { return maxOut_; }
  // Appends a message. Each completed frame is scored by the VAD and resampled;
  // the output (outRateHz) lands in out. *frames: frames completed, *vad: the
  // last frame's VAD result with the events of all of them. Odd/oversized input
  // or a too small out leaves the state untouched.
  Status Push(const uint8_t* msg, size_t nBytes, int16_t* out, size_t outCap, size_t* nOut,
              size_t* frames, VadResult* vad);
  void Reset();
  size_t frameSamples() const { return fs_; }
  size_t pendingSamples() const { return pending_; }
  // Heap bytes this instance owns (frame + resampler buffers; the shared table excluded).
  size_t stateBytes() const { return frame_.capacity() * sizeof(int16_t) + (resample_ ? rs_.stateBytes() : 0); }

 private:
  size_t fs_ = 0, maxMessageBytes_ = 0, maxOut_ = 0, pending_ = 0;
  bool resample_ = false;
  std::vector<int16_t> frame_;
  Vad vad_;
  Resampler rs_;
};

}  // namespace vc

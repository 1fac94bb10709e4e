// Framer: turns socket messages of any even byte length into fixed 10/20/30 ms
// PCM16 frames, carrying the partial frame across calls.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vc/status.h"

namespace vc {

class Framer {
 public:
  // maxMessageBytes: larger messages are rejected (contract: 64 KiB).
  Status Init(int sampleRateHz, int frameMs, size_t maxMessageBytes = 65536);

  // Appends a little-endian PCM16 message. Complete frames are written back to
  // back into out (capacity outCapSamples); *framesOut gets their count.
  // Odd/oversized input or a too small out leaves the state untouched.
  Status Push(const uint8_t* bytes, size_t nBytes, int16_t* out,
              size_t outCapSamples, size_t* framesOut);

  // Same as Push for samples already decoded (used after resampling).
  Status PushSamples(const int16_t* in, size_t n, int16_t* out,
                     size_t outCapSamples, size_t* framesOut);

  // Upper bound of frames a single Push of maxMessageBytes can produce.
  size_t MaxFramesPerPush() const;
  size_t frameSamples() const { return frameSamples_; }
  size_t pendingSamples() const { return pending_; }
  void Reset() { pending_ = 0; }

 private:
  size_t frameSamples_ = 0;
  size_t maxMessageBytes_ = 0;
  size_t pending_ = 0;
  std::vector<int16_t> carry_;
};

}  // namespace vc

#include "vc/echo_chain.h"

#include <algorithm>
#include <cstring>

namespace vc {

namespace {

// PCM16LE bytes -> samples: a plain copy on little-endian hosts.
inline void DecodeLe16(const uint8_t* b, size_t n, int16_t* out) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::memcpy(out, b, n * sizeof(int16_t));
#else
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<int16_t>(static_cast<uint16_t>(b[2 * i] | (b[2 * i + 1] << 8)));
#endif
}

}  // namespace

Status EchoChain::Init(int inRateHz, int outRateHz, int frameMs, size_t maxMessageBytes, ResamplerQuality q,
                       const VadOptions& vad) {
  fs_ = 0;
  if (!RateOk(inRateHz) || !RateOk(outRateHz)) return Status::kUnsupportedRate;
  if (maxMessageBytes < 2 || maxMessageBytes > (1u << 20)) return Status::kInvalidArgument;
  Status s = vad_.Init(inRateHz, frameMs, vad);
  if (!Ok(s)) return s;
  const size_t fs = vad_.frameSamples();
  resample_ = inRateHz != outRateHz;
  if (resample_) {
    s = rs_.Init(inRateHz, outRateHz, q, fs);  // one frame per resampler call
    if (!Ok(s)) return s;
  }
  fs_ = fs;
  maxMessageBytes_ = maxMessageBytes;
  const size_t maxFrames = (maxMessageBytes / 2 + fs - 1) / fs;
  // ceil(frames * out / in) + 1 covers any phase of the stream.
  maxOut_ = (maxFrames * fs * static_cast<size_t>(outRateHz) + inRateHz - 1) / inRateHz + 1;
  frame_.assign(fs, 0);
  frame_.shrink_to_fit();
  Reset();
  return Status::kOk;
}

void EchoChain::Reset() {
  pending_ = 0;
  vad_.Reset();
  if (resample_) rs_.Reset();
}

Status EchoChain::Push(const uint8_t* msg, size_t nBytes, int16_t* out, size_t outCap, size_t* nOut,
                       size_t* frames, VadResult* vad) {
  *nOut = 0;
  *frames = 0;
  if (fs_ == 0) return Status::kInvalidArgument;
  if (nBytes & 1) return Status::kOddLength;
  if (nBytes > maxMessageBytes_) return Status::kOversized;
  if (nBytes > 0 && msg == nullptr) return Status::kInvalidArgument;
  const size_t n = nBytes / 2, done = (pending_ + n) / fs_;
  const size_t need = resample_ ? rs_.OutputSamplesFor(done * fs_) : done * fs_;
  if (need > outCap) return Status::kBufferTooSmall;
  // After the checks nothing below can fail.
  int events = 0;
  size_t written = 0;
  for (size_t i = 0; i < n;) {
    const size_t take = std::min(fs_ - pending_, n - i);
    DecodeLe16(msg + 2 * i, take, frame_.data() + pending_);
    pending_ += take;
    i += take;
    if (pending_ < fs_) break;
    pending_ = 0;
    vad_.ProcessFrame(frame_.data(), vad);
    events |= vad->events;
    if (resample_) {
      size_t k = 0;
      rs_.Process(frame_.data(), fs_, out + written, outCap - written, &k);
      written += k;
    } else {
      std::memcpy(out + written, frame_.data(), fs_ * sizeof(int16_t));
      written += fs_;
    }
    ++*frames;
  }
  if (*frames) vad->events = events;
  *nOut = written;
  return Status::kOk;
}

}  // namespace vc

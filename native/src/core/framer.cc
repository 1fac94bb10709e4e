#include "vc/framer.h"

#include <cstring>

namespace vc {

Status Framer::Init(int sampleRateHz, int frameMs, size_t maxMessageBytes) {
  if (!RateOk(sampleRateHz)) return Status::kUnsupportedRate;
  if (frameMs != 10 && frameMs != 20 && frameMs != 30) return Status::kUnsupportedFrame;
  if (sampleRateHz % 100 != 0) return Status::kUnsupportedRate;  // 10 ms must be whole samples
  if (maxMessageBytes < 2 || maxMessageBytes > (1u << 24)) return Status::kInvalidArgument;
  frameSamples_ = static_cast<size_t>(sampleRateHz) * frameMs / 1000;
  maxMessageBytes_ = maxMessageBytes;
  carry_.assign(frameSamples_, 0);
  pending_ = 0;
  return Status::kOk;
}

size_t Framer::MaxFramesPerPush() const {
  if (frameSamples_ == 0) return 0;
  return (maxMessageBytes_ / 2 + frameSamples_ - 1) / frameSamples_;
}

static inline int16_t ReadLe16(const uint8_t* p) {
  return static_cast<int16_t>(static_cast<uint16_t>(p[0] | (p[1] << 8)));
}

Status Framer::Push(const uint8_t* bytes, size_t nBytes, int16_t* out,
                    size_t outCapSamples, size_t* framesOut) {
  *framesOut = 0;
  if (frameSamples_ == 0) return Status::kInvalidArgument;
  if (nBytes & 1) return Status::kOddLength;
  if (nBytes > maxMessageBytes_) return Status::kOversized;
  if (nBytes > 0 && bytes == nullptr) return Status::kInvalidArgument;
  const size_t nIn = nBytes / 2;
  const size_t frames = (pending_ + nIn) / frameSamples_;
  if (frames * frameSamples_ > outCapSamples) return Status::kBufferTooSmall;

  size_t consumed = 0;
  for (size_t f = 0; f < frames; ++f) {
    int16_t* dst = out + f * frameSamples_;
    size_t have = 0;
    if (pending_ > 0) {  // the carried partial frame goes first
      std::memcpy(dst, carry_.data(), pending_ * sizeof(int16_t));
      have = pending_;
      pending_ = 0;
    }
    for (; have < frameSamples_; ++have, ++consumed) dst[have] = ReadLe16(bytes + 2 * consumed);
  }
  for (; consumed < nIn; ++consumed) carry_[pending_++] = ReadLe16(bytes + 2 * consumed);
  *framesOut = frames;
  return Status::kOk;
}

}  // namespace vc

namespace vc {

Status Framer::PushSamples(const int16_t* in, size_t n, int16_t* out, size_t outCapSamples,
                           size_t* framesOut) {
  *framesOut = 0;
  if (frameSamples_ == 0) return Status::kInvalidArgument;
  if (n > 0 && in == nullptr) return Status::kInvalidArgument;
  if (n == 0) return Status::kOk;  // memcpy from a null pointer is UB even for 0 bytes
  const size_t frames = (pending_ + n) / frameSamples_;
  if (frames * frameSamples_ > outCapSamples) return Status::kBufferTooSmall;
  size_t used = 0;
  for (size_t f = 0; f < frames; ++f) {
    int16_t* dst = out + f * frameSamples_;
    std::memcpy(dst, carry_.data(), pending_ * sizeof(int16_t));
    const size_t take = frameSamples_ - pending_;
    std::memcpy(dst + pending_, in + used, take * sizeof(int16_t));
    used += take;
    pending_ = 0;
  }
  std::memcpy(carry_.data() + pending_, in + used, (n - used) * sizeof(int16_t));
  pending_ += n - used;
  *framesOut = frames;
  return Status::kOk;
}

}  // namespace vc

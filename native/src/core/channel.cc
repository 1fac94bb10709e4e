#include "vc/channel.h"

#include <algorithm>
#include <cstring>

namespace vc {

Status MediaChannel::Init(const ChannelConfig& c, bool externalOutput) {
  if (!RateOk(c.inRateHz) || !RateOk(c.procRateHz) || !RateOk(c.refRateHz)) return Status::kUnsupportedRate;
  if (c.maxMessageBytes < 2 || c.maxMessageBytes > (1u << 20)) return Status::kInvalidArgument;
  if (c.referenceBufferMs < 20 || c.referenceBufferMs > 10000) return Status::kInvalidArgument;
  c_ = c;
  // Scratch is sized by the largest message, not by the 64 KiB the contract allows.
  chunk_ = std::min(kChunk, c.maxMessageBytes / 2);
  Status s = frame_.Init(c.procRateHz, c.frameMs, 1u << 24);
  if (!Ok(s)) return s;
  s = bi_.Init(c.procRateHz, c.refRateHz, c.frameMs, c.bargeIn, c.vad);
  if (!Ok(s)) return s;
  resample_ = c.inRateHz != c.procRateHz;
  if (resample_) {
    s = rs_.Init(c.inRateHz, c.procRateHz, c.quality, chunk_);
    if (!Ok(s)) return s;
  }
  const size_t maxIn = c.maxMessageBytes / 2;
  const size_t maxProc = maxIn * static_cast<size_t>(c.procRateHz) / c.inRateHz + 2;
  pcm_.assign(chunk_, 0);
  rsOut_.assign(resample_ ? chunk_ * static_cast<size_t>(c.procRateHz) / c.inRateHz + 2 : 0, 0);
  maxFrames_ = maxProc / frame_.frameSamples() + 2;
  out_.assign(externalOutput ? 0 : maxFrames_ * frame_.frameSamples(), 0);
  prob_.assign(externalOutput ? 0 : maxFrames_, 0.f);
  callerProb_.assign(externalOutput ? 0 : maxFrames_, 0.f);
  refFifo_.assign(static_cast<size_t>(c.refRateHz) * static_cast<size_t>(c.referenceBufferMs) / 1000, 0);
  refFrame_.assign(bi_.refFrameSamples(), 0);
  Reset();
  return Status::kOk;
}

void MediaChannel::Reset() {
  frame_.Reset();
  if (resample_) rs_.Reset();
  bi_.Reset();
  refHead_ = refCount_ = 0;
}

void MediaChannel::TraceHops(bool on) {
  if (on) {
    trace_.assign(maxFrames_ * static_cast<size_t>(bi_.hopsPerFrame()) * static_cast<size_t>(HopField::kCount), 0.f);
  } else {
    std::vector<float>().swap(trace_);
  }
}

Status MediaChannel::PushReference(const int16_t* ref, size_t n) {
  if (n > 0 && ref == nullptr) return Status::kInvalidArgument;
  if (n == 0) return Status::kOk;  // memcpy from a null pointer is UB even for 0 bytes
  const size_t cap = refFifo_.size();
  if (n > cap) { ref += n - cap; n = cap; }
  // Ring write in at most two contiguous pieces (no per-sample modulo).
  const size_t at = (refHead_ + refCount_) % cap, first = std::min(n, cap - at);
  std::memcpy(refFifo_.data() + at, ref, first * sizeof(int16_t));
  std::memcpy(refFifo_.data(), ref + first, (n - first) * sizeof(int16_t));
  refCount_ += n;
  if (refCount_ > cap) {  // overflow: keep the newest audio
    refHead_ = (refHead_ + refCount_ - cap) % cap;
    refCount_ = cap;
  }
  return Status::kOk;
}

Status MediaChannel::Process(const uint8_t* msg, size_t nBytes, ChannelResult* r) {
  if (out_.empty()) { *r = ChannelResult(); return Status::kInvalidArgument; }  // Init(c, true): use the overload
  return Process(msg, nBytes, r, out_.data(), prob_.data(), callerProb_.data());
}

Status MediaChannel::Process(const uint8_t* msg, size_t nBytes, ChannelResult* r, int16_t* out, float* prob,
                             float* callerProb) {
  *r = ChannelResult();
  if (nBytes & 1) return Status::kOddLength;
  if (nBytes > c_.maxMessageBytes) return Status::kOversized;
  if (nBytes > 0 && msg == nullptr) return Status::kInvalidArgument;
  // Decode and resample in small chunks so the scratch buffers stay small;
  // only the frame output is sized for a whole maximum message. After the
  // checks above nothing below can fail (buffers are sized in Init).
  const size_t n = nBytes / 2, fsz = frame_.frameSamples();
  size_t frames = 0;
  const size_t outCap = maxFrames_ * fsz;
  for (size_t o = 0; o < n; o += chunk_) {
    const size_t k = std::min(chunk_, n - o);
    const uint8_t* m = msg + 2 * o;
    for (size_t i = 0; i < k; ++i)
      pcm_[i] = static_cast<int16_t>(static_cast<uint16_t>(m[2 * i] | (m[2 * i + 1] << 8)));
    const int16_t* proc = pcm_.data();
    size_t nProc = k, got = 0;
    if (resample_) {
      Status s = rs_.Process(pcm_.data(), k, rsOut_.data(), rsOut_.size(), &nProc);
      if (!Ok(s)) return s;
      proc = rsOut_.data();
    }
    Status s = frame_.PushSamples(proc, nProc, out + frames * fsz, outCap - frames * fsz, &got);
    if (!Ok(s)) return s;
    frames += got;
  }
  const size_t fs = fsz, rfs = refFrame_.size(), cap = refFifo_.size();
  for (size_t f = 0; f < frames; ++f) {
    // Reference consumed in lockstep with the mic; missing audio is silence.
    const size_t take = std::min(rfs, refCount_), first = std::min(take, cap - refHead_);
    std::memcpy(refFrame_.data(), refFifo_.data() + refHead_, first * sizeof(int16_t));
    std::memcpy(refFrame_.data() + first, refFifo_.data(), (take - first) * sizeof(int16_t));
    std::memset(refFrame_.data() + take, 0, (rfs - take) * sizeof(int16_t));
    refHead_ = (refHead_ + take) % cap;
    refCount_ -= take;
    VadResult v;
    BargeInResult b;
    if (!trace_.empty()) bi_.TraceHops(trace_.data() + f * static_cast<size_t>(bi_.hopsPerFrame()) * static_cast<size_t>(HopField::kCount));
    bi_.ProcessFrame(out + f * fs, refFrame_.data(), &v, &b);
    prob[f] = v.probability;
    callerProb[f] = b.callerProbability;
    if (v.events & kVadSpeechStart) r->events |= kChSpeechStart;
    if (v.events & kVadSpeechEnd) r->events |= kChSpeechEnd;
    if (b.events & kBargeInInterruption) r->events |= kChInterruption;
    if (b.events & kBargeInEnd) r->events |= kChInterruptionEnd;
    r->vadState = v.state;
    r->lastProbability = v.probability;
    r->lastCallerProbability = b.callerProbability;
    r->speechStartMs = v.speechStartMs;
    r->speechEndMs = v.speechEndMs;
    r->interruptionMs = b.interruptionMs;
    r->agentActive = b.agentActive;
  }
  r->frames = frames;
  return Status::kOk;
}

}  // namespace vc

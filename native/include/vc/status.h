// Status codes shared by every core API. No exceptions cross the core boundary.
#pragma once

namespace vc {

enum class Status : int {
  kOk = 0,
  kInvalidArgument = 1,   // bad constructor/config value
  kOddLength = 2,         // PCM16 message with an odd byte count
  kOversized = 3,         // message larger than the configured maximum
  kUnsupportedRate = 4,   // sample rate outside 8000..48000 Hz
  kBufferTooSmall = 5,    // caller-provided output buffer cannot hold the result
  kUnsupportedFrame = 6,  // frame duration not 10/20/30 ms
  kInvalidDigit = 7,      // DTMF digit outside 0-9 * # A-D
  kBadOption = 8,         // JS option of the wrong type, non-finite, non-integer, missing or unknown
};
constexpr Status kLastStatus = Status::kBadOption;

// Human readable text, e.g. "odd byte length".
const char* StatusString(Status s);
// Stable machine code suffix, e.g. "ODD_LENGTH" (JS adds VC_ERR_NATIVE_).
const char* StatusCode(Status s);

inline bool Ok(Status s) { return s == Status::kOk; }

constexpr int kMinRateHz = 8000;
constexpr int kMaxRateHz = 48000;
inline bool RateOk(int hz) { return hz >= kMinRateHz && hz <= kMaxRateHz; }

}  // namespace vc

#include "vc/status.h"

namespace vc {

const char* StatusString(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kInvalidArgument: return "invalid argument";
    case Status::kOddLength: return "PCM16 message has an odd byte length";
    case Status::kOversized: return "message larger than the maximum size";
    case Status::kUnsupportedRate: return "sample rate must be 8000..48000 Hz";
    case Status::kBufferTooSmall: return "output buffer too small";
    case Status::kUnsupportedFrame: return "frame duration must be 10, 20 or 30 ms";
    case Status::kInvalidDigit: return "DTMF digit must be one of 0-9 * # A-D";
    case Status::kBadOption: return "option has the wrong type, is not a finite number or integer, is missing or is unknown";
  }
  return "unknown status";
}

const char* StatusCode(Status s) {
  switch (s) {
    case Status::kOk: return "OK";
    case Status::kInvalidArgument: return "INVALID_ARGUMENT";
    case Status::kOddLength: return "ODD_LENGTH";
    case Status::kOversized: return "OVERSIZED";
    case Status::kUnsupportedRate: return "UNSUPPORTED_RATE";
    case Status::kBufferTooSmall: return "BUFFER_TOO_SMALL";
    case Status::kUnsupportedFrame: return "UNSUPPORTED_FRAME";
    case Status::kInvalidDigit: return "INVALID_DIGIT";
    case Status::kBadOption: return "BAD_OPTION";
  }
  return "UNKNOWN";
}

}  // namespace vc

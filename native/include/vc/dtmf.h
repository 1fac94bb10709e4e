// DTMF (ITU-T Q.23/Q.24) tone generation and Goertzel detection.
#pragma once
#include <cstddef>
#include <cstdint>

#include "vc/status.h"

namespace vc {

// Index 0..15 of "123A456B789C*0#D" (row-major keypad), or -1.
int DtmfDigitIndex(char digit);

class DtmfGenerator {
 public:
  // levelDbfs: per-tone level, e.g. -10.
  Status Init(int sampleRateHz, double levelDbfs = -10.0);
  // Writes tone (durationMs) then silence (gapMs); returns count via *nOut.
  Status Generate(char digit, int durationMs, int gapMs, int16_t* out,
                  size_t outCap, size_t* nOut);
  static size_t SamplesFor(int sampleRateHz, int durationMs, int gapMs);

 private:
  int rateHz_ = 0;
  double amp_ = 0;
};

class DtmfDetector {
 public:
  Status Init(int sampleRateHz);
  // Feeds samples; each newly detected key press appends its digit char to
  // digits (capacity cap). *nDigits gets the count. A key is reported once,
  // after two consecutive ~25 ms blocks agree.
  Status Process(const int16_t* in, size_t n, char* digits, size_t cap, size_t* nDigits);
  void Reset();

 private:
  char Classify() const;
  int rateHz_ = 0;
  int blockSamples_ = 0;
  float coef_[8] = {0};
  float s1_[8] = {0}, s2_[8] = {0};
  double energy_ = 0;
  int count_ = 0;
  char last_ = 0, reported_ = 0;
};

}  // namespace vc

// Answering-machine beep detector: a steady pure tone of 400-1,500 Hz lasting
// 150 ms-2 s, reported once it has ended (the time it ended, to the sample hop).
// Per 10 ms hop: a 32 ms Hann FFT gives the strongest peak at 200-3,000 Hz, the
// share of the 150-3,800 Hz energy in its main lobe (purity), whether that lobe is
// one tone's (not two close ones beating), the strongest other bin and what the 2nd
// and 3rd harmonics hold; a Goertzel at the tracked frequency over the hop alone
// follows the tone's level with 10 ms resolution. A run of pure hops at one
// frequency and one level that then stops (into quiet, not into another tone within
// 80 ms) is a beep when it is in the beep band and 150 ms-2 s long. Speech fails
// purity or frequency/level steadiness; chords, DTMF, ringback and busy tones have
// two or more partials; instrument notes have harmonics or vibrato; melody notes
// follow or precede another tone; long tones fail the duration limit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vc/fft.h"
#include "vc/status.h"

namespace vc {

struct BeepEvent {
  double startMs = -1;      // stream time the tone started (ms since Init/Reset)
  double endMs = -1;        // stream time the tone ended
  double frequencyHz = 0;
  double levelDbfs = -200;  // sine amplitude re full scale
  double detectedAtMs = -1; // stream time of the hop that confirmed it
};

class BeepDetector {
 public:
  // 8000 or 16000 Hz.
  Status Init(int sampleRateHz);
  // Feeds n samples (any count; a partial hop is carried). *found gets the number
  // of beeps confirmed during this call; last() describes the newest one.
  Status Process(const int16_t* in, size_t n, int* found);
  void Reset();
  const BeepEvent& last() const { return last_; }

 private:
  struct Features {
    bool pure = false;
    double freqHz = 0, levelDbfs = -200;
  };
  struct Run {
    bool active = false, invalid = false;
    double freqHz = 0, coef = 0;
    double startSample = 0;
    double firstAmp = 0, sumAmp = 0;  // Goertzel amplitude of the first hop; sum over later hops
    int hops = 0, checked = 0, impure = 0, unstable = 0, drift = 0, freqN = 0;
    double freqSum = 0, freqSq = 0;
    double prevAmp = 0;
  };
  struct Pending {
    bool active = false;
    BeepEvent ev;
    double coef = 0, amp = 0;
    int hops = 0;
  };

  void Hop(int* found);
  Features Analyze();
  double HopAmplitude(double coef, int hopsBack) const;
  double Coef(double freqHz) const;
  double RefAmp(const Run& r) const { return r.hops > 1 ? r.sumAmp / (r.hops - 1) : r.firstAmp; }
  void StartRun(const Features& f);
  void ContinueRun(const Features& f);
  void EndRun(double amp);
  double Ms(double samples) const { return samples * 1000.0 / rate_; }

  int rate_ = 0, hop_ = 0, n_ = 0;
  int kLo_ = 0, kHi_ = 0, kBandLo_ = 0, kBandHi_ = 0;
  double binHz_ = 0, windowPower_ = 0;
  RealFft fft_;
  std::vector<float> buf_, hann_, windowed_, pow_, hopIn_;
  int fill_ = 0;
  double pos_ = 0;  // samples consumed through the last complete hop
  Run run_;
  Pending pending_;
  double lastToneEnd_ = -1e18, lastToneFreq_ = 0;
  BeepEvent last_;
};

}  // namespace vc

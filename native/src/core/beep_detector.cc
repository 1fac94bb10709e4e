#include "vc/beep_detector.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace vc {

namespace {
constexpr double kWindowMs = 32;                      // FFT window: 31.25 Hz bins at 8 and 16 kHz
constexpr double kMinHz = 380, kMaxHz = 1530;         // 400-1,500 Hz with estimation margin
constexpr double kTrackLoHz = 200, kTrackHiHz = 3000; // tones tracked (melody notes outside the beep band too)
constexpr double kBandLoHz = 150, kBandHiHz = 3800;   // energy the peak is compared with (telephone band)
constexpr double kMinPurity = 0.6;                    // share of in-band energy in the peak's main lobe
constexpr double kMinCore = 0.95;                     // share of the lobe in its 3 central bins (one tone, not two)
constexpr double kMaxSecond = 0.1;                    // any other bin under -10 dB of the peak bin (DTMF, chords)
constexpr double kMaxHarmonic = 0.01;                 // 2nd and 3rd harmonic each under -20 dB of the peak
constexpr double kMinLevelDbfs = -45;
constexpr double kFreqTolHz = 15;                     // hops further off the run's frequency: another tone
constexpr double kMaxFreqSdHz = 2;                    // spread of the hop estimates: noise gives < 1 Hz, vibrato more
constexpr double kEndRatio = 0.5;                     // hop amplitude under -6 dB of the run's: the tone stopped
constexpr double kUnstableDb = 2.5;                   // hop level this far off the run's mean: not steady
constexpr int kConfirmHops = 8;                       // 80 ms after the end: no other tone takes over
constexpr double kMelodyDb = 12;                      // a following tone this loud means a melody
constexpr double kMelodyGapMs = 60;                   // a tone this soon after another one is a melody note
constexpr double kMinBeepMs = 130, kMaxBeepMs = 2150; // 150 ms-2 s, less/plus the end-point error
constexpr double kToneMs = 80;                        // runs this long count as tones for the melody rule
}  // namespace

Status BeepDetector::Init(int sampleRateHz) {
  if (sampleRateHz != 8000 && sampleRateHz != 16000) return Status::kUnsupportedRate;
  rate_ = sampleRateHz;
  hop_ = rate_ / 100;
  n_ = static_cast<int>(rate_ * kWindowMs / 1000);
  Status s = fft_.Init(n_);
  if (!Ok(s)) return s;
  binHz_ = static_cast<double>(rate_) / n_;
  kLo_ = static_cast<int>(std::floor(kTrackLoHz / binHz_));
  kHi_ = static_cast<int>(std::ceil(kTrackHiHz / binHz_));
  kBandLo_ = static_cast<int>(std::round(kBandLoHz / binHz_));
  kBandHi_ = static_cast<int>(std::round(kBandHiHz / binHz_));
  hann_.resize(n_);
  windowPower_ = 0;
  for (int i = 0; i < n_; ++i) {
    hann_[i] = static_cast<float>(0.5 - 0.5 * std::cos(2 * M_PI * (i + 0.5) / n_));
    windowPower_ += static_cast<double>(hann_[i]) * hann_[i];
  }
  buf_.assign(n_, 0.f);
  windowed_.assign(n_, 0.f);
  pow_.assign(n_ / 2 + 1, 0.f);
  hopIn_.assign(hop_, 0.f);
  Reset();
  return Status::kOk;
}

void BeepDetector::Reset() {
  std::fill(buf_.begin(), buf_.end(), 0.f);
  fill_ = 0;
  pos_ = 0;
  run_ = Run();
  pending_ = Pending();
  lastToneEnd_ = -1e18;
  lastToneFreq_ = 0;
  last_ = BeepEvent();
}

Status BeepDetector::Process(const int16_t* in, size_t n, int* found) {
  *found = 0;
  if (rate_ == 0) return Status::kInvalidArgument;
  if (n > 0 && in == nullptr) return Status::kInvalidArgument;
  size_t i = 0;
  while (i < n) {
    const size_t take = std::min(n - i, static_cast<size_t>(hop_ - fill_));
    for (size_t j = 0; j < take; ++j) hopIn_[fill_ + j] = in[i + j];
    fill_ += static_cast<int>(take);
    i += take;
    if (fill_ == hop_) {
      Hop(found);
      fill_ = 0;
    }
  }
  return Status::kOk;
}

double BeepDetector::Coef(double freqHz) const { return 2 * std::cos(2 * M_PI * freqHz / rate_); }

// Sine amplitude at the Goertzel frequency over one hop, hopsBack hops before the newest.
double BeepDetector::HopAmplitude(double coef, int hopsBack) const {
  const float* x = buf_.data() + n_ - (hopsBack + 1) * hop_;
  double s1 = 0, s2 = 0;
  for (int i = 0; i < hop_; ++i) {
    const double s0 = x[i] + coef * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const double p = std::max(0.0, s1 * s1 + s2 * s2 - coef * s1 * s2);
  return 2 * std::sqrt(p) / hop_;
}

BeepDetector::Features BeepDetector::Analyze() {
  Features f;
  for (int i = 0; i < n_; ++i) windowed_[i] = buf_[i] * hann_[i];
  fft_.Power(windowed_.data(), pow_.data(), kBandHi_ + 1);
  const float* p = pow_.data();
  double total = 0;
  for (int k = kBandLo_; k <= kBandHi_; ++k) total += p[k];
  int k = kLo_;
  for (int j = kLo_ + 1; j <= kHi_; ++j)
    if (p[j] > p[k]) k = j;
  if (total <= 0 || p[k] < p[k - 1] || p[k] < p[k + 1]) return f;  // no peak inside the band
  const double peak = p[k - 2] + p[k - 1] + p[k] + p[k + 1] + p[k + 2];  // Hann main lobe
  // Gaussian (log-parabolic) interpolation: a few Hz on a Hann window.
  const double la = std::log(p[k - 1] + 1e-9), lb = std::log(p[k] + 1e-9), lc = std::log(p[k + 1] + 1e-9);
  const double den = la - 2 * lb + lc;
  const double delta = den < 0 ? std::clamp(0.5 * (la - lc) / den, -0.5, 0.5) : 0.0;
  f.freqHz = (k + delta) * binHz_;
  f.levelDbfs = 20 * std::log10(std::sqrt(4 * peak / (n_ * windowPower_)) / 32767.0 + 1e-12);
  // Harmonics against the noise floor the other bins show.
  double harm[2] = {0, 0};
  int used = 5;
  for (int h = 2; h <= 3; ++h) {
    const int c = static_cast<int>(std::lround(h * (k + delta)));
    if (c + 1 > kBandHi_) continue;
    harm[h - 2] = p[c - 1] + p[c] + p[c + 1];
    used += 3;
  }
  const double floorBin = std::max(0.0, (total - peak - harm[0] - harm[1]) / std::max(1, kBandHi_ - kBandLo_ + 1 - used));
  bool harmOk = true;
  // 3 noise bins have a mean of 3 floorBin and a spread of about 2 floorBin: allow their mean + 1.5 spreads.
  for (double e : harm) harmOk = harmOk && e <= kMaxHarmonic * peak + 6 * floorBin;
  float second = 0;
  for (int j = kBandLo_; j <= kBandHi_; ++j)
    if (j < k - 2 || j > k + 2) second = std::max(second, p[j]);
  const double core = p[k - 1] + p[k] + p[k + 1];
  f.pure = peak >= kMinPurity * total && core >= kMinCore * peak && second <= kMaxSecond * p[k] && harmOk &&
           f.levelDbfs >= kMinLevelDbfs;
  return f;
}

void BeepDetector::Hop(int* found) {
  std::memmove(buf_.data(), buf_.data() + hop_, sizeof(float) * (n_ - hop_));
  std::memcpy(buf_.data() + n_ - hop_, hopIn_.data(), sizeof(float) * hop_);
  pos_ += hop_;
  const Features f = Analyze();
  if (pending_.active) {
    const BeepEvent& ev = pending_.ev;
    if (HopAmplitude(pending_.coef, 0) >= kEndRatio * pending_.amp) {
      pending_.active = false;  // the tone came back: a gap, not an end
    } else if (f.pure && std::fabs(f.freqHz - ev.frequencyHz) > kFreqTolHz && f.levelDbfs > ev.levelDbfs - kMelodyDb) {
      pending_.active = false;  // another tone follows at once: a melody
    } else if (++pending_.hops >= kConfirmHops) {
      last_ = ev;
      last_.detectedAtMs = Ms(pos_);
      ++*found;
      pending_.active = false;
    }
  }
  if (run_.active) ContinueRun(f);
  else if (f.pure) StartRun(f);
}

void BeepDetector::StartRun(const Features& f) {
  run_ = Run();
  run_.active = true;
  run_.freqHz = f.freqHz;
  run_.coef = Coef(f.freqHz);
  const double amp = HopAmplitude(run_.coef, 0);
  run_.firstAmp = run_.prevAmp = amp;
  run_.hops = 1;
  // Start: back over the hops the window still holds while they carry the tone.
  int b = 1;
  while (b <= 2 && HopAmplitude(run_.coef, b) >= kEndRatio * amp) ++b;
  const double r = b <= 2 ? std::clamp(HopAmplitude(run_.coef, b) / amp, 0.0, 1.0) : 0.0;
  run_.startSample = pos_ - b * hop_ - r * hop_;
  if (Ms(run_.startSample - lastToneEnd_) < kMelodyGapMs && std::fabs(f.freqHz - lastToneFreq_) > kFreqTolHz)
    run_.invalid = true;
}

void BeepDetector::ContinueRun(const Features& f) {
  const double a = HopAmplitude(run_.coef, 0);
  const double ref = RefAmp(run_);
  if (a < kEndRatio * ref) {
    const double freq = run_.freqHz;
    EndRun(a);
    if (f.pure && std::fabs(f.freqHz - freq) > kFreqTolHz) StartRun(f);
    return;
  }
  ++run_.hops;
  run_.sumAmp += a;
  run_.prevAmp = a;
  if (run_.hops >= 3 && std::fabs(20 * std::log10(a / ref)) > kUnstableDb) ++run_.unstable;
  if (run_.hops >= 4) {  // the FFT window now lies inside the tone
    ++run_.checked;
    if (!f.pure) {
      ++run_.impure;
    } else if (std::fabs(f.freqHz - run_.freqHz) > kFreqTolHz) {
      ++run_.drift;
    } else {
      run_.freqSum += f.freqHz;
      run_.freqSq += f.freqHz * f.freqHz;
      ++run_.freqN;
      run_.freqHz = run_.freqSum / run_.freqN;
    }
  }
}

void BeepDetector::EndRun(double amp) {
  const double ref = RefAmp(run_);
  // The tone stopped inside the previous hop (if that one was short of full level) or this one;
  // a Goertzel amplitude is proportional to the tone's share of the hop.
  double end;
  if (run_.prevAmp < 0.9 * ref) end = pos_ - 2 * hop_ + hop_ * std::clamp(run_.prevAmp / ref, 0.0, 1.0);
  else end = pos_ - hop_ + hop_ * std::clamp(amp / ref, 0.0, 1.0);
  run_.active = false;
  BeepEvent ev;
  ev.startMs = Ms(run_.startSample);
  ev.endMs = Ms(end);
  ev.frequencyHz = run_.freqHz;
  ev.levelDbfs = 20 * std::log10(ref / 32767.0 + 1e-12);
  const double dur = ev.endMs - ev.startMs;
  if (dur >= kToneMs) {
    lastToneEnd_ = end;
    lastToneFreq_ = run_.freqHz;
  }
  const double sd = std::sqrt(std::max(0.0, run_.freqSq / std::max(1, run_.freqN) - run_.freqHz * run_.freqHz));
  const bool steady = run_.drift == 0 && sd <= kMaxFreqSdHz && run_.impure <= 1 + run_.checked / 4 &&
                      run_.unstable <= 1 + (run_.hops - 2) / 10;
  const bool inBand = ev.frequencyHz >= kMinHz && ev.frequencyHz <= kMaxHz;
  if (run_.invalid || !steady || !inBand || dur < kMinBeepMs || dur > kMaxBeepMs || ev.levelDbfs < kMinLevelDbfs) return;
  pending_.active = true;
  pending_.ev = ev;
  pending_.coef = run_.coef;
  pending_.amp = ref;
  pending_.hops = 0;
}

}  // namespace vc

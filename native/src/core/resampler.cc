#include "vc/resampler.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>

#include "vc/simd.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(VC_NO_MULTIVERSION)
#define VC_X86_KERNELS 1
#include <immintrin.h>
#endif

namespace vc {

namespace {

double BesselI0(double x) {  // power series; converges fast for Kaiser betas
  double sum = 1.0, term = 1.0;
  for (int k = 1; k < 64; ++k) {
    term *= (x / (2.0 * k)) * (x / (2.0 * k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

struct Design { double passEdge, stopEdge, attenDb; };  // edges in x lower Nyquist

Design DesignFor(ResamplerQuality q) {
  switch (q) {
    case ResamplerQuality::kLow: return {0.80, 1.0, 60.0};
    case ResamplerQuality::kHigh: return {0.92, 1.0, 102.0};
    // Alias-free passband: images/aliases of anything reaching 0-0.9 are >= 80 dB
    // down; only the 0.9-1.0 transition band may hold them. Half the taps.
    case ResamplerQuality::kFast: return {0.90, 1.10, 80.5};
    default: return {0.90, 1.0, 80.5};
  }
}

// Computes outputs while the newest needed input sample is buffered. Hot loop:
// one dot product of taps floats per output sample.
VC_MULTIVERSION
size_t Produce(const float* coef, int taps, int up, int stepInt, int stepFrac,
               const float* buf, size_t fill, size_t* posIo, int* phaseIo, float* out) {
  size_t pos = *posIo;
  int phase = *phaseIo;
  size_t n = 0;
  while (pos < fill) {
    const float* x = buf + pos - (taps - 1);
    const float* h = coef + static_cast<size_t>(phase) * taps;
    v8f a0 = {0}, a1 = {0};
    int j = 0;
    for (; j + 16 <= taps; j += 16) {
      a0 += LoadU8(x + j) * LoadU8(h + j);
      a1 += LoadU8(x + j + 8) * LoadU8(h + j + 8);
    }
    for (; j < taps; j += 8) a0 += LoadU8(x + j) * LoadU8(h + j);
    out[n++] = HSum8(a0 + a1);
    phase += stepFrac;
    pos += stepInt;
    if (phase >= up) { phase -= up; ++pos; }
  }
  *posIo = pos;
  *phaseIo = phase;
  return n;
}

// Round-half-away and saturate a block to int16; vectorises in the v3 clone.
VC_MULTIVERSION
void ToPcmBlock(const float* in, size_t n, int16_t* out) {
  for (size_t i = 0; i < n; ++i) {
    float v = in[i];
    v = v > 32767.f ? 32767.f : v;
    v = v < -32768.f ? -32768.f : v;
    out[i] = static_cast<int16_t>(static_cast<int>(v + (v >= 0.f ? 0.5f : -0.5f)));
  }
}
void StoreBlock(const float* in, size_t n, int16_t* out) { ToPcmBlock(in, n, out); }
void StoreBlock(const float* in, size_t n, float* out) { std::memcpy(out, in, n * sizeof(float)); }
inline int16_t* AsPcm(int16_t* p) { return p; }
inline int16_t* AsPcm(float*) { return nullptr; }
inline float* AsFloat(int16_t*) { return nullptr; }
inline float* AsFloat(float* p) { return p; }

inline float ToFloat(int16_t v) { return static_cast<float>(v); }
inline float ToFloat(float v) { return v; }

}  // namespace

// ---- Small-ratio kernels, one per instruction set (resampler_kernel.inc) ----

namespace kgen {  // any CPU: 128-bit GCC vectors (SSE2 / NEON), separate multiply and add
typedef float v4f __attribute__((vector_size(16)));
struct V {
  using T = v4f;
  static constexpr int kLanes = 4, kMainBlocks = 4;  // 8 accumulators: fits 16 registers
  static T Zero() { return T{}; }
  static T Bcast(const float* p) { return T{} + *p; }
  static T Load(const float* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static T LoadA(const float* p) { return Load(p); }
  static T Fma(T a, T b, T c) { return c + a * b; }
  static T Add(T a, T b) { return a + b; }
  static void Store(float* p, T v) { std::memcpy(p, &v, sizeof v); }
  static void StorePcm(int32_t* p, T v) {
    for (int i = 0; i < kLanes; ++i) {
      float x = v[i];
      x = x > 32767.f ? 32767.f : (x < -32768.f ? -32768.f : x);
      p[i] = static_cast<int>(x + (x >= 0.f ? 0.5f : -0.5f));
    }
  }
};
#include "resampler_kernel.inc"
}  // namespace kgen

#ifdef VC_X86_KERNELS
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace kavx2 {
struct V {
  using T = __m256;
  static constexpr int kLanes = 8, kMainBlocks = 5;  // 10 accumulators + 2 broadcasts of 16 registers
  static T Zero() { return _mm256_setzero_ps(); }
  static T Bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static T Load(const float* p) { return _mm256_loadu_ps(p); }
  static T LoadA(const float* p) { return _mm256_load_ps(p); }
  static T Fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T Add(T a, T b) { return _mm256_add_ps(a, b); }
  static void Store(float* p, T v) { _mm256_storeu_ps(p, v); }
  static void StorePcm(int32_t* p, T v) {  // clamp, then round half away from zero
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(-32768.f)), _mm256_set1_ps(32767.f));
    const T half = _mm256_or_ps(_mm256_and_ps(v, _mm256_set1_ps(-0.f)), _mm256_set1_ps(0.5f));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_cvttps_epi32(_mm256_add_ps(v, half)));
  }
};
#include "resampler_kernel.inc"
}  // namespace kavx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12: _mm512_undefined_* in the cvt intrinsics
namespace kavx512 {
struct V {
  using T = __m512;
  static constexpr int kLanes = 16, kMainBlocks = 5;  // 80 outputs: a 20 ms class is 160
  static T Zero() { return _mm512_setzero_ps(); }
  static T Bcast(const float* p) { return _mm512_set1_ps(*p); }
  static T Load(const float* p) { return _mm512_loadu_ps(p); }
  static T LoadA(const float* p) { return _mm512_load_ps(p); }
  static T Fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T Add(T a, T b) { return _mm512_add_ps(a, b); }
  static void Store(float* p, T v) { _mm512_storeu_ps(p, v); }
  static void StorePcm(int32_t* p, T v) {
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(-32768.f)), _mm512_set1_ps(32767.f));
    const __m512i sign = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(static_cast<int>(0x80000000u)));
    const T half = _mm512_castsi512_ps(_mm512_or_si512(sign, _mm512_castps_si512(_mm512_set1_ps(0.5f))));
    _mm512_storeu_si512(p, _mm512_cvttps_epi32(_mm512_add_ps(v, half)));
  }
};

// kLanes shifted, aligned copies of each stream's first span rows (see BlockA), in a
// per-thread scratch sized by Reserve (called from Resampler::Init) and then reused.
struct Scratch {
  float* p = nullptr;
  size_t capacity = 0;
  ~Scratch() { std::free(p); }
};
thread_local Scratch tScratch;

static void Reserve(int down, size_t rows) {
  constexpr size_t L = V::kLanes;
  if (down > 2) return;  // see Vertical: copies only for one or two streams
  const size_t span = (rows + 2 * L - 1) & ~(L - 1);
  const size_t need = static_cast<size_t>(down) * L * span;
  if (need <= tScratch.capacity) return;
  std::free(tScratch.p);
  tScratch.p = static_cast<float*>(std::aligned_alloc(64, need * sizeof(float)));
  tScratch.capacity = tScratch.p ? need : 0;
}

static const float* AlignedCopies(const float* streams, size_t streamLen, int down, size_t span) {
  constexpr size_t L = V::kLanes;
  const size_t need = static_cast<size_t>(down) * L * span;
  if (need > tScratch.capacity) Reserve(down, span);  // another thread than Init's: first call only
  float* scratch = tScratch.p;
  if (!scratch || need > tScratch.capacity) return nullptr;  // the unaligned kernel still works
  for (int s = 0; s < down; ++s) {
    const float* st = streams + static_cast<size_t>(s) * streamLen;
    for (size_t p = 0; p < L; ++p) {
      float* d = scratch + (static_cast<size_t>(s) * L + p) * span;
      for (size_t j = 0; j < span; j += L) _mm512_store_ps(d + j, _mm512_loadu_ps(st + p + j));
    }
  }
  return scratch;
}
#define VC_KERNEL_ALIGNED 1
#include "resampler_kernel.inc"
#undef VC_KERNEL_ALIGNED
}  // namespace kavx512
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif

namespace {

void NoReserve(int, size_t) {}

struct Kernels {
  const char* name;
  void (*reserve)(int down, size_t rows);  // per-thread scratch for a stream length
  size_t (*vertical)(const float*, int, int, int, const float*, size_t, size_t, size_t*, int*, float*, int16_t*);
  void (*split16)(const int16_t*, size_t, size_t, int, float*, size_t);
  void (*splitF)(const float*, size_t, size_t, int, float*, size_t);
};

const Kernels kGeneric = {"generic", NoReserve, kgen::Vertical, kgen::Split<int16_t>, kgen::Split<float>};
#ifdef VC_X86_KERNELS
const Kernels kAvx2 = {"avx2", NoReserve, kavx2::Vertical, kavx2::Split<int16_t>, kavx2::Split<float>};
const Kernels kAvx512 = {"avx512", kavx512::Reserve, kavx512::Vertical, kavx512::Split<int16_t>, kavx512::Split<float>};
#endif

const Kernels* KernelsNamed(const char* name) {
  if (!name) return nullptr;
#ifdef VC_X86_KERNELS
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (!std::strcmp(name, "avx512")) return avx2 && __builtin_cpu_supports("avx512f") ? &kAvx512 : nullptr;
  if (!std::strcmp(name, "avx2")) return avx2 ? &kAvx2 : nullptr;
#endif
  if (!std::strcmp(name, "generic")) return &kGeneric;
  return nullptr;
}

const Kernels* BestKernels() {
  if (const Kernels* k = KernelsNamed(std::getenv("VC_NATIVE_SIMD"))) return k;
  for (const char* n : {"avx512", "avx2"})
    if (const Kernels* k = KernelsNamed(n)) return k;
  return &kGeneric;
}

std::atomic<const Kernels*> gKernels{nullptr};

const Kernels* ActiveKernels() {
  const Kernels* k = gKernels.load(std::memory_order_relaxed);
  if (!k) {
    k = BestKernels();
    gKernels.store(k, std::memory_order_relaxed);
  }
  return k;
}

inline void Split(const Kernels* k, const int16_t* in, size_t n, size_t fill0, int down, float* st, size_t len) {
  k->split16(in, n, fill0, down, st, len);
}
inline void Split(const Kernels* k, const float* in, size_t n, size_t fill0, int down, float* st, size_t len) {
  k->splitF(in, n, fill0, down, st, len);
}

std::atomic<size_t> gTables{0}, gTableBytes{0};

}  // namespace

const char* ResamplerSimd() { return ActiveKernels()->name; }

bool SetResamplerSimd(const char* level) {
  const Kernels* k = KernelsNamed(level);
  if (!k) return false;
  gKernels.store(k, std::memory_order_relaxed);
  return true;
}

ResamplerTableStats ResamplerTables() { return {gTables.load(), gTableBytes.load()}; }

// ---- Shared filter tables ----

struct ResamplerFilter {
  int up = 1, down = 1, taps = 0;
  std::vector<float> coef;  // up phases x taps, time reversed, unit DC gain per phase
  ResamplerFilter() = default;
  ResamplerFilter(const ResamplerFilter&) = delete;
  ResamplerFilter& operator=(const ResamplerFilter&) = delete;
  ~ResamplerFilter() {
    gTables.fetch_sub(1);
    gTableBytes.fetch_sub(coef.size() * sizeof(float));
  }
};

namespace {

// Kaiser-windowed sinc for one (in, out, quality); up/down are the reduced ratio terms.
std::shared_ptr<const ResamplerFilter> DesignFilter(int inRateHz, int outRateHz, int up, int down, ResamplerQuality q) {
  Design d = DesignFor(q);
  // Decimation folds everything above the new Nyquist straight back into the
  // band, so it gets 5.5 dB more design margin (measured: up >= 86 dB, down >= 88 dB).
  if (inRateHz > outRateHz) d.attenDb += 5.5;
  const double fsUp = static_cast<double>(inRateHz) * up;
  const double nyq = 0.5 * std::min(inRateHz, outRateHz);
  const double pass = d.passEdge * nyq, stop = d.stopEdge * nyq;
  const double fc = 0.5 * (pass + stop) / fsUp;  // cycles per upsampled sample
  const double dw = 2.0 * M_PI * (stop - pass) / fsUp;
  const double nTotal = (d.attenDb - 7.95) / (2.285 * dw) + 1.0;
  int taps = static_cast<int>(std::ceil(nTotal / up));
  taps = (taps + 7) & ~7;  // SIMD width; a longer window only helps
  const int stepInt = down / up;
  if (taps < stepInt + 2) taps = (stepInt + 2 + 7) & ~7;
  const double beta = 0.1102 * (d.attenDb - 8.7);
  const int len = taps * up;
  const double center = 0.5 * (len - 1);
  const double i0b = BesselI0(beta);
  std::vector<double> h(len);
  for (int t = 0; t < len; ++t) {
    const double x = t - center;
    const double r = x / (0.5 * len);
    const double w = BesselI0(beta * std::sqrt(std::max(0.0, 1.0 - r * r))) / i0b;
    const double arg = 2.0 * fc * x;
    const double sinc = (std::fabs(arg) < 1e-12) ? 1.0 : std::sin(M_PI * arg) / (M_PI * arg);
    h[t] = 2.0 * fc * sinc * w;
  }
  auto f = std::make_shared<ResamplerFilter>();
  f->up = up;
  f->down = down;
  f->taps = taps;
  f->coef.assign(static_cast<size_t>(len), 0.f);
  for (int p = 0; p < up; ++p) {
    double sum = 0;
    for (int k = 0; k < taps; ++k) sum += h[p + k * up];
    // Each phase gets unit DC gain so a constant input stays exactly flat.
    for (int k = 0; k < taps; ++k)
      f->coef[static_cast<size_t>(p) * taps + (taps - 1 - k)] = static_cast<float>(h[p + k * up] / sum);
  }
  gTables.fetch_add(1);
  gTableBytes.fetch_add(f->coef.size() * sizeof(float));
  return f;
}

// One live table per key; entries of tables nobody holds any more are designed anew.
std::shared_ptr<const ResamplerFilter> SharedFilter(int inRateHz, int outRateHz, int up, int down, ResamplerQuality q) {
  using Key = std::tuple<int, int, int>;
  static std::mutex mu;
  static std::map<Key, std::weak_ptr<const ResamplerFilter>>* cache = new std::map<Key, std::weak_ptr<const ResamplerFilter>>();
  std::lock_guard<std::mutex> lock(mu);
  const Key key(inRateHz, outRateHz, static_cast<int>(q));
  auto it = cache->find(key);
  if (it != cache->end()) {
    if (auto f = it->second.lock()) return f;
  }
  for (auto e = cache->begin(); e != cache->end();) e = e->second.expired() ? cache->erase(e) : std::next(e);
  auto f = DesignFilter(inRateHz, outRateHz, up, down, q);
  (*cache)[key] = f;
  return f;
}

}  // namespace

Status Resampler::Init(int inRateHz, int outRateHz, ResamplerQuality q, size_t maxBlockSamples) {
  filter_.reset();
  coef_ = nullptr;
  up_ = down_ = 1;
  taps_ = 0;
  buf_.clear();
  buf_.shrink_to_fit();
  if (!RateOk(inRateHz) || !RateOk(outRateHz)) return Status::kUnsupportedRate;
  int qi = static_cast<int>(q);
  if (qi < 0 || qi > 3) return Status::kInvalidArgument;
  if (maxBlockSamples > (size_t{1} << 22)) return Status::kInvalidArgument;
  const int g = std::gcd(inRateHz, outRateHz);
  const int up = outRateHz / g, down = inRateHz / g;
  // Bounds the coefficient table (phases x taps) for odd rate pairs.
  if (up > kMaxPhases || down > kMaxPhases) return Status::kUnsupportedRate;
  filter_ = SharedFilter(inRateHz, outRateHz, up, down, q);
  coef_ = filter_->coef.data();
  up_ = up;
  down_ = down;
  taps_ = filter_->taps;
  stepInt_ = down_ / up_;
  stepFrac_ = down_ % up_;
  const size_t block = maxBlockSamples ? maxBlockSamples : kBlock;
  vertical_ = up_ <= 6 && down_ <= 6;
  // History is taps-1 samples, plus down-1 in the vertical form, whose streams only
  // shift by whole multiples of down.
  cap_ = static_cast<size_t>(taps_ - 1) + static_cast<size_t>(down_ - 1) + block;
  if (vertical_) {
    // Lanes read up to one vector past the last output; aligned copies up to two.
    streamLen_ = (cap_ + down_ - 1) / down_ + kPad;
    buf_.assign(streamLen_ * down_, 0.f);
    ActiveKernels()->reserve(down_, (cap_ + down_ - 1) / down_);  // per thread, not per instance
  } else {
    streamLen_ = 0;
    buf_.assign(cap_ + kPad, 0.f);
  }
  buf_.shrink_to_fit();
  Reset();
  return Status::kOk;
}

void Resampler::Reset() {
  std::fill(buf_.begin(), buf_.end(), 0.f);  // the history is silence
  fill_ = taps_ > 0 ? taps_ - 1 : 0;
  pos_ = fill_;
  phase_ = 0;
  totalIn_ = totalOut_ = 0;
}

double Resampler::delayOutSamples() const {
  return 0.5 * (static_cast<double>(taps_) * up_ - 1) / down_;
}

size_t Resampler::OutputSamplesFor(size_t nIn) const {
  const long long in = totalIn_ + static_cast<long long>(nIn);
  const long long outs = (in * up_ + down_ - 1) / down_;  // outputs n with floor(n*down/up) < in
  return static_cast<size_t>(outs - totalOut_);
}

template <typename In, typename Out>
Status Resampler::Run(const In* in, size_t n, Out* out, size_t outCap, size_t* nOut) {
  *nOut = 0;
  if (taps_ == 0) return Status::kInvalidArgument;
  if (n > 0 && in == nullptr) return Status::kInvalidArgument;
  if (OutputSamplesFor(n) > outCap) return Status::kBufferTooSmall;
  const Kernels* kern = ActiveKernels();
  size_t written = 0;
  float tmp[512];
  size_t done = 0;
  float* const buf = buf_.data();
  while (done < n) {
    const size_t chunk = std::min(cap_ - fill_, n - done);
    const size_t fill = fill_ + chunk;
    if (vertical_) {
      Split(kern, in + done, chunk, fill_, down_, buf, streamLen_);
      written += kern->vertical(coef_, taps_, up_, down_, buf, streamLen_, fill, &pos_, &phase_,
                                AsFloat(out + written), AsPcm(out + written));
    } else {
      float* dst = buf + fill_;
      for (size_t i = 0; i < chunk; ++i) dst[i] = ToFloat(in[done + i]);
      // Cap the newest sample index so at most 512 outputs land in tmp per pass.
      while (pos_ < fill) {
        size_t lim = std::min(fill, pos_ + static_cast<size_t>(512 / (up_ / down_ + 1)) * 1);
        if (lim <= pos_) lim = pos_ + 1;
        size_t k = Produce(coef_, taps_, up_, stepInt_, stepFrac_, buf, lim, &pos_, &phase_, tmp);
        StoreBlock(tmp, k, out + written);
        written += k;
      }
    }
    done += chunk;
    fill_ = fill;
    // Keep the last taps-1 samples before pos_ as history for the next pass.
    size_t keep = pos_ - (taps_ - 1);
    if (vertical_) {
      keep -= keep % static_cast<size_t>(down_);  // streams shift by whole rows
      const size_t rows = (fill_ - keep + down_ - 1) / down_;
      for (int s = 0; s < down_; ++s) {
        float* st = buf + static_cast<size_t>(s) * streamLen_;
        std::memmove(st, st + keep / down_, rows * sizeof(float));
      }
    } else {
      std::memmove(buf, buf + keep, (fill_ - keep) * sizeof(float));
    }
    fill_ -= keep;
    pos_ -= keep;
  }
  totalIn_ += static_cast<long long>(n);
  totalOut_ += static_cast<long long>(written);
  *nOut = written;
  return Status::kOk;
}

Status Resampler::Process(const int16_t* in, size_t n, int16_t* out, size_t outCap, size_t* nOut) {
  return Run(in, n, out, outCap, nOut);
}
Status Resampler::ProcessFloat(const float* in, size_t n, float* out, size_t outCap, size_t* nOut) {
  return Run(in, n, out, outCap, nOut);
}

}  // namespace vc

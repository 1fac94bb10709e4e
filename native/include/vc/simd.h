// Portable SIMD helpers (GCC/Clang vector extensions) and function
// multiversioning so one binary uses AVX2+FMA where the CPU has it.
#pragma once
#include <cstdint>
#include <cstring>

namespace vc {

typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));  // comparison results: -1 / 0 per lane

static inline v8f LoadU8(const float* p) {
  v8f v;
  std::memcpy(&v, p, sizeof v);  // unaligned load, compiles to vmovups
  return v;
}

static inline v8f AsF(v8i x) { v8f r; std::memcpy(&r, &x, sizeof r); return r; }
static inline v8i AsI(v8f x) { v8i r; std::memcpy(&r, &x, sizeof r); return r; }
static inline v8f Select(v8i mask, v8f a, v8f b) { return AsF((AsI(a) & mask) | (AsI(b) & ~mask)); }
// Lane masks of comparisons (the cast pins the mask type for GCC and Clang alike).
static inline v8i Gt8(v8f a, v8f b) { return (v8i)(a > b); }
static inline v8f Max8(v8f a, v8f b) { return Select(Gt8(a, b), a, b); }
static inline v8f Min8(v8f a, v8f b) { return Select(Gt8(b, a), a, b); }

static inline float HSum8(v8f v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

}  // namespace vc

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(VC_NO_MULTIVERSION)
#define VC_MULTIVERSION __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VC_MULTIVERSION
#endif

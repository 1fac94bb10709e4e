// Portable SIMD helpers (GCC/Clang vector extensions) and function
// multiversioning so one binary uses AVX2+FMA where the CPU has it.
#pragma once
#include <cstring>

namespace vc {

typedef float v8f __attribute__((vector_size(32)));

static inline v8f LoadU8(const float* p) {
  v8f v;
  std::memcpy(&v, p, sizeof v);  // unaligned load, compiles to vmovups
  return v;
}

static inline float HSum8(v8f v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

}  // namespace vc

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(VC_NO_MULTIVERSION)
#define VC_MULTIVERSION __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VC_MULTIVERSION
#endif

// Radix-2 FFT of a real signal (through a half-size complex FFT), power spectrum only.
// Tables are built once by Init; Power() does not allocate.
#pragma once
#include <vector>

#include "vc/status.h"

namespace vc {

class RealFft {
 public:
  // n: a power of two, 16..8192.
  Status Init(int n);
  // pow[k] = |X[k]|^2 for k = 0..kMax (kMax <= n/2) of the n real samples x.
  void Power(const float* x, float* pow, int kMax);
  int size() const { return n_; }

 private:
  int n_ = 0, m_ = 0;  // m_ = n_/2 complex points
  std::vector<int> rev_;
  std::vector<float> twRe_, twIm_;  // e^{-2 pi i k / m}, k < m/2
  std::vector<float> spRe_, spIm_;  // e^{-2 pi i k / n}, k <= n/2 (even/odd split)
  std::vector<float> re_, im_;
};

}  // namespace vc

// libFuzzer: G.711 codecs on arbitrary bytes. decode->encode->decode must be
// stable and encode->decode must stay within one quantisation step.
#include <cstdlib>
#include <vector>

#include "vc/g711.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<int16_t> pcm(size), pcm2(size);
  std::vector<uint8_t> law(size);
  for (int alaw = 0; alaw < 2; ++alaw) {
    auto dec = alaw ? vc::AlawDecode : vc::MulawDecode;
    auto enc = alaw ? vc::AlawEncode : vc::MulawEncode;
    dec(data, size, pcm.data());
    enc(pcm.data(), size, law.data());
    dec(law.data(), size, pcm2.data());
    for (size_t i = 0; i < size; ++i)
      if (pcm[i] != pcm2[i]) abort();
  }
  // Reinterpret the bytes as PCM and check the round-trip error bound.
  const size_t n = size / 2;
  for (size_t i = 0; i < n; ++i) {
    const int16_t x = static_cast<int16_t>(static_cast<uint16_t>(data[2 * i] | (data[2 * i + 1] << 8)));
    const int mu = vc::MulawDecodeSample(vc::MulawEncodeSample(x));
    const int a = vc::AlawDecodeSample(vc::AlawEncodeSample(x));
    const int ax = x < 0 ? -x : x;
    const int tol = ax / 16 + 140;  // segment step is < 1/16 of the magnitude (+ clip region)
    if (std::abs(mu - x) > tol || std::abs(a - x) > tol) abort();
  }
  return 0;
}

// libFuzzer: G.711 codecs on arbitrary bytes. decode->encode->decode must be
// stable and encode->decode must stay within one quantisation step; MulawBase64 must write
// exactly 4 * ceil(n / 3) characters that decode to MulawEncode's bytes.
#include <cstdlib>
#include <cstring>
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
  std::vector<uint8_t> text((n + 2) / 3 * 4 + 1, 0xAA);
  if (vc::MulawBase64(data, n, text.data()) != text.size() - 1 || text.back() != 0xAA) abort();
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  auto value = [](uint8_t c) -> uint32_t { const char* p = std::strchr(kAlphabet, c); return p && c ? static_cast<uint32_t>(p - kAlphabet) : 64; };
  for (size_t i = 0, o = 0; i < n; i += 3, o += 4) {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const bool pad = text[o + k] == '=';
      if (pad != (k >= 2 && i + k - 1 >= n)) abort();
      const uint32_t d = pad ? 0 : value(text[o + k]);
      if (d > 63) abort();
      v = v << 6 | d;
    }
    for (size_t k = 0; k < 3 && i + k < n; ++k) {
      const int16_t x = static_cast<int16_t>(static_cast<uint16_t>(data[2 * (i + k)] | (data[2 * (i + k) + 1] << 8)));
      if ((v >> (16 - 8 * k) & 0xFF) != vc::MulawEncodeSample(x)) abort();
    }
  }
  return 0;
}

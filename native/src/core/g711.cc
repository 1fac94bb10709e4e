// G.711 per the ITU-T recommendation: segment (exponent) + 4-bit mantissa.
#include "vc/g711.h"

namespace vc {

namespace {
constexpr int kMulawBias = 0x84;
constexpr int kMulawClip = 32635;

// Segment = number of significant bits of v >> shift, capped at 7 (one clz, no loop).
inline int SegmentOf(int v, int shift) {
  const unsigned m = static_cast<unsigned>(v) >> shift;
  const int seg = m ? 32 - __builtin_clz(m) : 0;
  return seg < 7 ? seg : 7;
}
}  // namespace

uint8_t MulawEncodeSample(int16_t pcm) {
  int v = pcm;
  int sign = (v < 0) ? 0x80 : 0;
  if (v < 0) v = -v;
  if (v > kMulawClip) v = kMulawClip;
  v += kMulawBias;
  int seg = SegmentOf(v, 8);
  int mant = (v >> (seg + 3)) & 0x0F;
  return static_cast<uint8_t>(~(sign | (seg << 4) | mant));
}

int16_t MulawDecodeSample(uint8_t code) {
  int c = ~code & 0xFF;
  int seg = (c >> 4) & 7;
  int v = (((c & 0x0F) << 3) + kMulawBias) << seg;
  v -= kMulawBias;
  return static_cast<int16_t>((c & 0x80) ? -v : v);
}

uint8_t AlawEncodeSample(int16_t pcm) {
  int v = pcm >> 3;  // A-law works on 13-bit magnitude
  int sign = 0x80;
  if (v < 0) { v = -v - 1; sign = 0; }
  if (v > 0xFFF) v = 0xFFF;
  int seg = SegmentOf(v, 5);
  int mant = (seg == 0) ? (v >> 1) & 0x0F : (v >> seg) & 0x0F;
  return static_cast<uint8_t>((sign | (seg << 4) | mant) ^ 0x55);
}

int16_t AlawDecodeSample(uint8_t code) {
  int c = code ^ 0x55;
  int seg = (c >> 4) & 7;
  int v = ((c & 0x0F) << 4) + 8;
  if (seg > 0) v = (v + 0x100) << (seg - 1);
  return static_cast<int16_t>((c & 0x80) ? v : -v);
}

void MulawEncode(const int16_t* in, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = MulawEncodeSample(in[i]);
}
void MulawDecode(const uint8_t* in, size_t n, int16_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = MulawDecodeSample(in[i]);
}
void AlawEncode(const int16_t* in, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = AlawEncodeSample(in[i]);
}
void AlawDecode(const uint8_t* in, size_t n, int16_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = AlawDecodeSample(in[i]);
}

size_t MulawBase64(const uint8_t* pcmLe, size_t n, uint8_t* out) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  auto law = [pcmLe](size_t i) {
    return static_cast<uint32_t>(MulawEncodeSample(static_cast<int16_t>(pcmLe[2 * i] | pcmLe[2 * i + 1] << 8)));
  };
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    const size_t k = n - i < 3 ? n - i : 3;
    const uint32_t v = law(i) << 16 | (k > 1 ? law(i + 1) << 8 : 0) | (k > 2 ? law(i + 2) : 0);
    out[o++] = kAlphabet[v >> 18 & 63];
    out[o++] = kAlphabet[v >> 12 & 63];
    out[o++] = k > 1 ? kAlphabet[v >> 6 & 63] : '=';
    out[o++] = k > 2 ? kAlphabet[v & 63] : '=';
  }
  return o;
}

}  // namespace vc

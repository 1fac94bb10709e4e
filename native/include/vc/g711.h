// G.711 mu-law and A-law (ITU-T G.711) sample codecs. Stateless, no allocation.
#pragma once
#include <cstddef>
#include <cstdint>

namespace vc {

uint8_t MulawEncodeSample(int16_t pcm);
int16_t MulawDecodeSample(uint8_t code);
uint8_t AlawEncodeSample(int16_t pcm);
int16_t AlawDecodeSample(uint8_t code);

// Buffer forms: n samples in, n bytes out (and vice versa).
void MulawEncode(const int16_t* in, size_t n, uint8_t* out);
void MulawDecode(const uint8_t* in, size_t n, int16_t* out);
void AlawEncode(const int16_t* in, size_t n, uint8_t* out);
void AlawDecode(const uint8_t* in, size_t n, int16_t* out);

// The mu-law of n PCM16LE samples given as bytes (2n, any alignment), written straight out as
// padded base64 text: what a carrier media stream carries. Returns the characters written,
// 4 * ceil(n / 3).
size_t MulawBase64(const uint8_t* pcmLe, size_t n, uint8_t* out);

}  // namespace vc

// Addon entry: status table, G.711 functions, and registration of the
// ...Wrap classes defined in the other *_wrap.cc files.
#include "common.h"
#include "vc/g711.h"

namespace vcjs {
Napi::Object InitFramer(Napi::Env env, Napi::Object exports);
Napi::Object InitResampler(Napi::Env env, Napi::Object exports);
Napi::Object InitVad(Napi::Env env, Napi::Object exports);
Napi::Object InitChannel(Napi::Env env, Napi::Object exports);
Napi::Object InitEchoChain(Napi::Env env, Napi::Object exports);
Napi::Object InitDtmf(Napi::Env env, Napi::Object exports);
Napi::Object InitAmbience(Napi::Env env, Napi::Object exports);
Napi::Object InitBeepDetector(Napi::Env env, Napi::Object exports);
}  // namespace vcjs

using namespace vcjs;

// [code, message] per status number, so JS maps a negative return to an Error.
static Napi::Value StatusTable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array a = Napi::Array::New(env);
  for (int i = 0; i <= static_cast<int>(vc::kLastStatus); ++i) {
    Napi::Array row = Napi::Array::New(env, 2);
    row.Set(0u, std::string("VC_ERR_NATIVE_") + vc::StatusCode(static_cast<vc::Status>(i)));
    row.Set(1u, vc::StatusString(static_cast<vc::Status>(i)));
    a.Set(static_cast<uint32_t>(i), row);
  }
  return a;
}

// g711(op, in, out): op 0 mu-encode, 1 mu-decode, 2 A-encode, 3 A-decode.
// Returns samples converted or -status.
static Napi::Value G711(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int op = IntArg(info, 0, -1);
  int16_t* pcm = nullptr;
  uint8_t* law = nullptr;
  size_t nPcm = 0, nLaw = 0;
  const bool encode = op == 0 || op == 2;
  if (op < 0 || op > 3 || info.Length() < 3 ||
      !(encode ? I16(info[1], &pcm, &nPcm) && U8(info[2], &law, &nLaw)
               : U8(info[1], &law, &nLaw) && I16(info[2], &pcm, &nPcm))) {
    ThrowArg(env, "g711(op, input, output) expects Int16Array/Uint8Array");
    return env.Undefined();
  }
  const size_t n = encode ? nPcm : nLaw;
  if ((encode ? nLaw : nPcm) < n) return Napi::Number::New(env, Neg(vc::Status::kBufferTooSmall));
  switch (op) {
    case 0: vc::MulawEncode(pcm, n, law); break;
    case 1: vc::MulawDecode(law, n, pcm); break;
    case 2: vc::AlawEncode(pcm, n, law); break;
    default: vc::AlawDecode(law, n, pcm); break;
  }
  return Napi::Number::New(env, static_cast<double>(n));
}

// mulawBase64(pcmBytes, out, offset): the mu-law of PCM16LE bytes as base64 text, written into
// `out` from `offset`. Returns the characters written or -status.
static Napi::Value MulawBase64(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint8_t* pcm = nullptr;
  uint8_t* out = nullptr;
  size_t nPcm = 0, nOut = 0;
  const int offset = IntArg(info, 2, -1);
  if (info.Length() < 3 || !U8(info[0], &pcm, &nPcm) || !U8(info[1], &out, &nOut) || offset < 0 || (nPcm & 1)) {
    ThrowArg(env, "mulawBase64(pcmBytes, out, offset) expects an even-length Uint8Array, a Uint8Array and an offset");
    return env.Undefined();
  }
  const size_t n = nPcm / 2, chars = (n + 2) / 3 * 4;
  if (static_cast<size_t>(offset) > nOut || nOut - offset < chars) return Napi::Number::New(env, Neg(vc::Status::kBufferTooSmall));
  return Napi::Number::New(env, static_cast<double>(vc::MulawBase64(pcm, n, out + offset)));
}

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("statusTable", Napi::Function::New(env, StatusTable));
  exports.Set("g711", Napi::Function::New(env, G711));
  exports.Set("mulawBase64", Napi::Function::New(env, MulawBase64));
  InitFramer(env, exports);
  InitResampler(env, exports);
  InitVad(env, exports);
  InitChannel(env, exports);
  InitEchoChain(env, exports);
  InitDtmf(env, exports);
  InitAmbience(env, exports);
  InitBeepDetector(env, exports);
  return exports;
}

NODE_API_MODULE(vc_native, Init)

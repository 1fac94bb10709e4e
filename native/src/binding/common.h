// Helpers shared by the thin N-API wrappers: argument access without
// exceptions (NAPI_DISABLE_CPP_EXCEPTIONS) and status -> JS error mapping.
#pragma once
#include <napi.h>

#include <string>

#include "vc/status.h"

namespace vcjs {

// Throws an Error whose code is VC_ERR_NATIVE_<WHAT> (message: detail, else the status text).
inline void ThrowStatus(Napi::Env env, vc::Status s, const std::string& detail = std::string()) {
  Napi::Error e = Napi::Error::New(env, detail.empty() ? std::string(vc::StatusString(s)) : detail);
  e.Set("code", Napi::String::New(env, std::string("VC_ERR_NATIVE_") + vc::StatusCode(s)));
  e.ThrowAsJavaScriptException();
}

inline void ThrowArg(Napi::Env env, const char* what) {
  Napi::TypeError e = Napi::TypeError::New(env, what);
  e.Set("code", Napi::String::New(env, "VC_ERR_NATIVE_INVALID_ARGUMENT"));
  e.ThrowAsJavaScriptException();
}

// Raw bytes of a Buffer/Uint8Array/any TypedArray or ArrayBuffer. Hot path: one
// napi_get_typedarray_info call (its data pointer already includes the byte offset)
// instead of the several that Napi::TypedArray accessors make.
inline bool Bytes(const Napi::Value& v, const uint8_t** p, size_t* n) {
  napi_typedarray_type type;
  size_t len = 0;
  void* data = nullptr;
  if (napi_get_typedarray_info(v.Env(), v, &type, &len, &data, nullptr, nullptr) == napi_ok) {
    static const uint8_t kElementBytes[] = {1, 1, 1, 2, 2, 4, 4, 4, 8, 8, 8};  // napi_int8_array .. napi_biguint64_array
    *p = static_cast<const uint8_t*>(data);
    *n = len * (static_cast<size_t>(type) < sizeof kElementBytes ? kElementBytes[type] : 1);
    return true;
  }
  // An ArrayBuffer (uWS hands each message as one): one napi_get_arraybuffer_info call for data
  // and length; Napi::ArrayBuffer's Data() and ByteLength() make one each (a BackingStore each).
  if (napi_get_arraybuffer_info(v.Env(), v, &data, &len) == napi_ok) {
    *p = static_cast<const uint8_t*>(data);
    *n = len;
    return true;
  }
  return false;
}

template <typename T, napi_typedarray_type K>
inline bool Typed(const Napi::Value& v, T** p, size_t* n) {
  napi_typedarray_type type;
  size_t len = 0;
  void* data = nullptr;
  if (napi_get_typedarray_info(v.Env(), v, &type, &len, &data, nullptr, nullptr) != napi_ok || type != K) return false;
  *p = static_cast<T*>(data);
  *n = len;
  return true;
}

inline bool I16(const Napi::Value& v, int16_t** p, size_t* n) {
  return Typed<int16_t, napi_int16_array>(v, p, n);
}
inline bool U8(const Napi::Value& v, uint8_t** p, size_t* n) {
  return Typed<uint8_t, napi_uint8_array>(v, p, n);
}

// Positional arguments of per-call methods (constructor options go through options.h).
inline int IntArg(const Napi::CallbackInfo& info, size_t i, int dflt) {
  return info.Length() > i && info[i].IsNumber() ? info[i].As<Napi::Number>().Int32Value() : dflt;
}
inline double NumArg(const Napi::CallbackInfo& info, size_t i, double dflt) {
  return info.Length() > i && info[i].IsNumber() ? info[i].As<Napi::Number>().DoubleValue() : dflt;
}

// A JS-owned typed array kept alive by the wrapper; the core writes into it.
template <typename T>
struct Held {
  using Arr = Napi::TypedArrayOf<T>;
  Napi::Reference<Arr> ref;
  T* data = nullptr;
  size_t size = 0;
  void Make(Napi::Env env, size_t n) {
    Arr a = Arr::New(env, n);
    data = a.Data();
    size = n;
    ref = Napi::Persistent(a);
  }
  Napi::Value Value() const { return ref.Value(); }
};

inline int Neg(vc::Status s) { return -static_cast<int>(s); }

}  // namespace vcjs

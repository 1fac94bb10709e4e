// JS option objects -> core option structs. A wrap constructor reads each key
// its class knows exactly once through an Options reader, and those reads are
// the list End() checks the object's own keys against. A missing (or undefined)
// key keeps the default already in the target; a wrong type, a non-finite
// number, a non-integer where an integer is needed, a missing required key or
// an unknown key throws VC_ERR_NATIVE_BAD_OPTION naming the key. Ranges stay
// with the core, which reports them with its own status as before.
#pragma once
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common.h"
#include "vc/bargein.h"
#include "vc/vad.h"

namespace vcjs {

class Options {
 public:
  // what: class name for messages. An undefined value reads as an empty object.
  Options(Napi::Env env, const Napi::Value& v, const char* what, std::string prefix = std::string())
      : env_(env), what_(what), prefix_(std::move(prefix)) {
    if (v.IsUndefined()) return;
    if (!v.IsObject()) { Fail(std::string(), "must be an object"); return; }
    obj_ = v.As<Napi::Object>();
  }

  // Integer; saturated to int so that a huge value fails the core's range check.
  Options& Int(const char* key, int* out, bool required = false) {
    double d = 0;
    if (Integer(key, required, &d)) *out = Saturate(d);
    return *this;
  }
  // Byte/sample counts: a negative count becomes 0, which every core minimum rejects.
  Options& Size(const char* key, size_t* out) {
    double d = 0;
    if (Integer(key, false, &d)) *out = static_cast<size_t>(Saturate(d < 0 ? 0 : d));
    return *this;
  }
  Options& U32(const char* key, uint32_t* out) {
    double d = 0;
    if (!Integer(key, false, &d)) return *this;
    if (d < 0 || d > UINT32_MAX) { Fail(key, "must be an integer in 0..4294967295"); return *this; }
    *out = static_cast<uint32_t>(d);
    return *this;
  }
  Options& Double(const char* key, double* out) {
    double d = 0;
    if (Number(key, false, &d)) *out = d;
    return *this;
  }
  Options& Float(const char* key, float* out) {
    double d = 0;
    if (Number(key, false, &d)) *out = static_cast<float>(d);
    return *this;
  }
  // A nested options object, read by read(Options&) and checked for unknown keys.
  template <typename F>
  Options& Object(const char* key, F read) {
    Napi::Value v;
    if (!Get(key, false, &v)) return *this;
    if (!v.IsObject()) { Fail(key, "must be an object"); return *this; }
    Options sub(env_, v, what_, prefix_ + key + ".");
    read(sub);
    if (!sub.End()) ok_ = false;
    return *this;
  }

  // Call after the reads: an own enumerable key that no read named is an error.
  bool End() {
    if (!ok_ || obj_.IsEmpty()) return ok_;
    napi_value names = nullptr;
    if (napi_get_all_property_names(env_, obj_, napi_key_own_only,
                                    static_cast<napi_key_filter>(napi_key_enumerable | napi_key_skip_symbols),
                                    napi_key_numbers_to_strings, &names) != napi_ok)
      return Fail(std::string(), "could not be enumerated");
    Napi::Array a(env_, names);
    for (uint32_t i = 0; i < a.Length(); ++i) {
      const std::string k = a.Get(i).As<Napi::String>().Utf8Value();
      bool known = false;
      for (const char* n : known_) known = known || k == n;
      if (!known) return Fail(k, "is not known (known: " + KnownList() + ")");
    }
    return true;
  }

 private:
  static int Saturate(double d) { return d <= INT_MIN ? INT_MIN : d >= INT_MAX ? INT_MAX : static_cast<int>(d); }

  // Records key as known; true when it is present (not undefined) and no error is pending.
  bool Get(const char* key, bool required, Napi::Value* v) {
    known_.push_back(key);
    if (!ok_) return false;
    if (!obj_.IsEmpty()) {
      *v = obj_.Get(key);
      if (v->IsEmpty()) { ok_ = false; return false; }  // a getter threw: its exception is pending
      if (!v->IsUndefined()) return true;
    }
    if (required) Fail(key, "is required");
    return false;
  }
  bool Number(const char* key, bool required, double* d) {
    Napi::Value v;
    if (!Get(key, required, &v)) return false;
    if (!v.IsNumber()) return Fail(key, "must be a number");
    *d = v.As<Napi::Number>().DoubleValue();
    return std::isfinite(*d) ? true : Fail(key, "must be a finite number");
  }
  bool Integer(const char* key, bool required, double* d) {
    if (!Number(key, required, d)) return false;
    return *d == std::trunc(*d) ? true : Fail(key, "must be an integer");
  }
  std::string KnownList() const {
    std::string s;
    for (const char* n : known_) s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
  }
  bool Fail(const std::string& key, const std::string& why) {
    if (!ok_) return false;
    ok_ = false;
    const std::string name = key.empty() ? (prefix_.empty() ? "options" : "option " + prefix_.substr(0, prefix_.size() - 1))
                                         : "option " + prefix_ + key;
    ThrowStatus(env_, vc::Status::kBadOption, std::string(what_) + ": " + name + " " + why);
    return false;
  }

  Napi::Env env_;
  Napi::Object obj_;
  const char* what_;
  std::string prefix_;
  std::vector<const char*> known_;
  bool ok_ = true;
};

inline void ReadVad(Options& r, vc::VadOptions* o) {
  r.Float("threshold", &o->threshold).Int("startMs", &o->startMs).Int("stopMs", &o->stopMs);
}

inline void ReadBargeIn(Options& r, vc::BargeInOptions* o) {
  r.Int("minDurationMs", &o->minDurationMs)
      .Float("threshold", &o->threshold)
      .Int("maxEchoDelayMs", &o->maxEchoDelayMs)
      .Float("echoMarginDb", &o->echoMarginDb)
      .Int("gapMs", &o->gapMs)
      .Int("echoCancellerMs", &o->echoCancellerMs);
}

// The first argument of a wrap constructor (undefined when absent).
inline Napi::Value Arg(const Napi::CallbackInfo& info, size_t i) {
  return info.Length() > i ? info[i] : info.Env().Undefined();
}

}  // namespace vcjs

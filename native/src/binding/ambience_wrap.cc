#include "common.h"
#include "options.h"
#include "vc/ambience.h"
#include "vc/mixer.h"

namespace vcjs {

// new Ambience({sampleRateHz, kind 0..3, level 0..100, seed}); generate(out, mix).
class AmbienceWrap : public Napi::ObjectWrap<AmbienceWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("Ambience", DefineClass(env, "Ambience", {
      InstanceMethod("generate", &AmbienceWrap::Generate),
      InstanceMethod("setLevel", &AmbienceWrap::SetLevel),
    }));
    return exports;
  }
  explicit AmbienceWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<AmbienceWrap>(info) {
    int rate = 0, kind = 0, level = 0;
    uint32_t seed = 1;
    Options o(info.Env(), Arg(info, 0), "Ambience");
    o.Int("sampleRateHz", &rate, true).Int("kind", &kind, true).Int("level", &level, true).U32("seed", &seed);
    if (!o.End()) return;
    vc::Status s = core_.Init(rate, static_cast<vc::AmbienceKind>(kind), level, seed);
    if (!vc::Ok(s)) ThrowStatus(info.Env(), s);
  }

 private:
  Napi::Value Generate(const Napi::CallbackInfo& info) {
    int16_t* p = nullptr;
    size_t n = 0;
    if (info.Length() < 1 || !I16(info[0], &p, &n)) { ThrowArg(info.Env(), "generate expects an Int16Array"); return info.Env().Undefined(); }
    core_.Generate(p, n, info.Length() > 1 && info[1].ToBoolean().Value());
    return Napi::Number::New(info.Env(), static_cast<double>(n));
  }
  Napi::Value SetLevel(const Napi::CallbackInfo& info) {
    vc::Status s = core_.SetLevel(IntArg(info, 0, -1));
    return Napi::Number::New(info.Env(), vc::Ok(s) ? 0 : Neg(s));
  }
  vc::Ambience core_;
};

// new Mixer({gainADb, gainBDb}); mix(a, b|null, out) -> samples | -status.
class MixerWrap : public Napi::ObjectWrap<MixerWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("Mixer", DefineClass(env, "Mixer", {
      InstanceMethod("mix", &MixerWrap::Mix),
      InstanceMethod("setGains", &MixerWrap::SetGains),
      InstanceAccessor("clippedSamples", &MixerWrap::Clipped, nullptr),
    }));
    return exports;
  }
  explicit MixerWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MixerWrap>(info) {
    double a = 0, b = 0;
    Options o(info.Env(), Arg(info, 0), "Mixer");
    o.Double("gainADb", &a).Double("gainBDb", &b);
    if (!o.End()) return;
    vc::Status s = core_.SetGains(a, b);
    if (!vc::Ok(s)) ThrowStatus(info.Env(), s);
  }

 private:
  Napi::Value Mix(const Napi::CallbackInfo& info) {
    int16_t *a = nullptr, *b = nullptr, *o = nullptr;
    size_t na = 0, nb = 0, no = 0;
    const bool hasB = info.Length() > 1 && !info[1].IsNull() && !info[1].IsUndefined();
    if (info.Length() < 3 || !I16(info[0], &a, &na) || (hasB && !I16(info[1], &b, &nb)) || !I16(info[2], &o, &no)) {
      ThrowArg(info.Env(), "mix expects (Int16Array, Int16Array|null, Int16Array)");
      return info.Env().Undefined();
    }
    if ((hasB && nb < na) || no < na) return Napi::Number::New(info.Env(), Neg(vc::Status::kBufferTooSmall));
    core_.Mix(a, hasB ? b : nullptr, na, o);
    return Napi::Number::New(info.Env(), static_cast<double>(na));
  }
  Napi::Value SetGains(const Napi::CallbackInfo& info) {
    vc::Status s = core_.SetGains(NumArg(info, 0, 0), NumArg(info, 1, 0));
    return Napi::Number::New(info.Env(), vc::Ok(s) ? 0 : Neg(s));
  }
  Napi::Value Clipped(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.clippedSamples()));
  }
  vc::Mixer core_;
};

Napi::Object InitAmbience(Napi::Env env, Napi::Object exports) {
  AmbienceWrap::Init(env, exports);
  return MixerWrap::Init(env, exports);
}

}  // namespace vcjs

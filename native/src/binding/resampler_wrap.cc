#include <algorithm>
#include <string>

#include "common.h"
#include "options.h"
#include "vc/resampler.h"

namespace vcjs {

// new Resampler({inRateHz, outRateHz, quality 0..3, maxInputSamples});
// process(Int16Array) -> output samples in .output | -status.
class ResamplerWrap : public Napi::ObjectWrap<ResamplerWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    Napi::Function f = DefineClass(env, "Resampler", {
      InstanceMethod("process", &ResamplerWrap::Process),
      InstanceMethod("processFloat", &ResamplerWrap::ProcessFloat),
      InstanceMethod("outputSamplesFor", &ResamplerWrap::OutFor),
      InstanceMethod("reset", &ResamplerWrap::Reset),
      InstanceAccessor("output", &ResamplerWrap::Output, nullptr),
      InstanceAccessor("tapsPerPhase", &ResamplerWrap::Taps, nullptr),
      InstanceAccessor("delayOutSamples", &ResamplerWrap::Delay, nullptr),
      InstanceAccessor("stateBytes", &ResamplerWrap::StateBytes, nullptr),
    });
    exports.Set("Resampler", f);
    exports.Set("resamplerTables", Napi::Function::New(env, Tables));
    exports.Set("resamplerSimd", Napi::Function::New(env, Simd));
    return exports;
  }

  explicit ResamplerWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ResamplerWrap>(info) {
    int in = 0, out = 0, q = 1, maxIn = 32768;
    Options o(info.Env(), Arg(info, 0), "Resampler");
    o.Int("inRateHz", &in, true).Int("outRateHz", &out, true).Int("quality", &q).Int("maxInputSamples", &maxIn);
    if (!o.End()) return;
    if (maxIn <= 0 || maxIn > (1 << 22)) { ThrowStatus(info.Env(), vc::Status::kInvalidArgument); return; }
    // The internal block never needs to exceed the largest call: state sized by it.
    const size_t block = std::min<size_t>(static_cast<size_t>(maxIn), 2048);
    vc::Status s = core_.Init(in, out, static_cast<vc::ResamplerQuality>(q), block);
    if (!vc::Ok(s)) { ThrowStatus(info.Env(), s); return; }
    out_.Make(info.Env(), core_.OutputSamplesFor(static_cast<size_t>(maxIn)) + 8);
  }

 private:
  Napi::Value Process(const Napi::CallbackInfo& info) {
    int16_t* p = nullptr;
    size_t n = 0;
    if (info.Length() < 1 || !I16(info[0], &p, &n)) {
      ThrowArg(info.Env(), "process expects an Int16Array");
      return info.Env().Undefined();
    }
    size_t nOut = 0;
    vc::Status s = core_.Process(p, n, out_.data, out_.size, &nOut);
    return Napi::Number::New(info.Env(), vc::Ok(s) ? static_cast<double>(nOut) : Neg(s));
  }
  // processFloat(in: Float32Array, out: Float32Array) for measurements without int16 rounding.
  Napi::Value ProcessFloat(const Napi::CallbackInfo& info) {
    float *in = nullptr, *out = nullptr;
    size_t n = 0, cap = 0;
    if (info.Length() < 2 || !Typed<float, napi_float32_array>(info[0], &in, &n) ||
        !Typed<float, napi_float32_array>(info[1], &out, &cap)) {
      ThrowArg(info.Env(), "processFloat expects two Float32Arrays");
      return info.Env().Undefined();
    }
    size_t nOut = 0;
    vc::Status s = core_.ProcessFloat(in, n, out, cap, &nOut);
    return Napi::Number::New(info.Env(), vc::Ok(s) ? static_cast<double>(nOut) : Neg(s));
  }
  Napi::Value OutFor(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.OutputSamplesFor(
        static_cast<size_t>(std::max(0.0, NumArg(info, 0, 0))))));
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { core_.Reset(); return info.Env().Undefined(); }
  Napi::Value Output(const Napi::CallbackInfo&) { return out_.Value(); }
  Napi::Value Taps(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), core_.tapsPerPhase()); }
  Napi::Value Delay(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), core_.delayOutSamples()); }
  // Native bytes this instance owns: sample buffers + the output array (shared table excluded).
  Napi::Value StateBytes(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.stateBytes() + out_.size * sizeof(int16_t)));
  }
  // resamplerTables() -> [live shared filter tables, their bytes].
  static Napi::Value Tables(const Napi::CallbackInfo& info) {
    const vc::ResamplerTableStats t = vc::ResamplerTables();
    Napi::Array a = Napi::Array::New(info.Env(), 2);
    a.Set(0u, static_cast<double>(t.tables));
    a.Set(1u, static_cast<double>(t.bytes));
    return a;
  }
  // resamplerSimd(level?) -> kernel in use; with a level ("avx512", "avx2", "generic")
  // switches to it first, returning "" when this CPU cannot run it (tests, benchmarks).
  static Napi::Value Simd(const Napi::CallbackInfo& info) {
    if (info.Length() > 0 && info[0].IsString()) {
      const std::string level = info[0].As<Napi::String>().Utf8Value();
      if (!vc::SetResamplerSimd(level.c_str())) return Napi::String::New(info.Env(), "");
    }
    return Napi::String::New(info.Env(), vc::ResamplerSimd());
  }

  vc::Resampler core_;
  Held<int16_t> out_;
};

Napi::Object InitResampler(Napi::Env env, Napi::Object exports) { return ResamplerWrap::Init(env, exports); }

}  // namespace vcjs

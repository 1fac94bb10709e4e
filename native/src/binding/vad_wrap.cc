#include "common.h"
#include "options.h"
#include "vc/bargein.h"
#include "vc/vad.h"

namespace vcjs {

static void PutVad(double* info, const vc::VadResult& r) {
  info[0] = r.probability;
  info[1] = static_cast<double>(r.state);
  info[2] = r.events;
  info[3] = static_cast<double>(r.speechStartMs);
  info[4] = static_cast<double>(r.speechEndMs);
}

// new Vad({sampleRateHz, frameMs, threshold, startMs, stopMs}); process(frame) -> probability | -status.
// .info (Float64Array): probability, state, events, speechStartMs, speechEndMs.
class VadWrap : public Napi::ObjectWrap<VadWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("Vad", DefineClass(env, "Vad", {
      InstanceMethod("process", &VadWrap::Process),
      InstanceMethod("reset", &VadWrap::Reset),
      InstanceAccessor("info", &VadWrap::Info, nullptr),
      InstanceAccessor("frameSamples", &VadWrap::FrameSamples, nullptr),
    }));
    return exports;
  }
  explicit VadWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<VadWrap>(info) {
    int rate = 0, frameMs = 0;
    vc::VadOptions vad;
    Options o(info.Env(), Arg(info, 0), "Vad");
    o.Int("sampleRateHz", &rate, true).Int("frameMs", &frameMs, true);
    ReadVad(o, &vad);
    if (!o.End()) return;
    vc::Status s = core_.Init(rate, frameMs, vad);
    if (!vc::Ok(s)) { ThrowStatus(info.Env(), s); return; }
    info_.Make(info.Env(), 5);
  }

 private:
  Napi::Value Process(const Napi::CallbackInfo& info) {
    int16_t* p = nullptr;
    size_t n = 0;
    if (info.Length() < 1 || !I16(info[0], &p, &n)) {
      ThrowArg(info.Env(), "process expects an Int16Array frame");
      return info.Env().Undefined();
    }
    if (n != core_.frameSamples()) return Napi::Number::New(info.Env(), Neg(vc::Status::kInvalidArgument));
    vc::VadResult r;
    core_.ProcessFrame(p, &r);
    PutVad(info_.data, r);
    return Napi::Number::New(info.Env(), r.probability);
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { core_.Reset(); return info.Env().Undefined(); }
  Napi::Value Info(const Napi::CallbackInfo&) { return info_.Value(); }
  Napi::Value FrameSamples(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.frameSamples()));
  }
  vc::Vad core_;
  Held<double> info_;
};

// new BargeIn({micRateHz, refRateHz, frameMs, bargeIn, vad});
// process(mic, ref|null) -> caller probability | -status.
// .info: callerProbability, callerSpeech, agentActive, events, interruptionMs,
//        then the VAD fields (probability, state, events, speechStartMs, speechEndMs).
class BargeInWrap : public Napi::ObjectWrap<BargeInWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("BargeIn", DefineClass(env, "BargeIn", {
      InstanceMethod("process", &BargeInWrap::Process),
      InstanceMethod("reset", &BargeInWrap::Reset),
      InstanceAccessor("info", &BargeInWrap::Info, nullptr),
      InstanceAccessor("frameSamples", &BargeInWrap::FrameSamples, nullptr),
      InstanceAccessor("refFrameSamples", &BargeInWrap::RefFrameSamples, nullptr),
    }));
    return exports;
  }
  explicit BargeInWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BargeInWrap>(info) {
    int mic = 0, ref = 0, frameMs = 0;
    vc::BargeInOptions bargeIn;
    vc::VadOptions vad;
    Options o(info.Env(), Arg(info, 0), "BargeIn");
    o.Int("micRateHz", &mic, true)
        .Int("refRateHz", &ref, true)
        .Int("frameMs", &frameMs, true)
        .Object("bargeIn", [&](Options& b) { ReadBargeIn(b, &bargeIn); })
        .Object("vad", [&](Options& v) { ReadVad(v, &vad); });
    if (!o.End()) return;
    vc::Status s = core_.Init(mic, ref, frameMs, bargeIn, vad);
    if (!vc::Ok(s)) { ThrowStatus(info.Env(), s); return; }
    info_.Make(info.Env(), 10);
  }

 private:
  Napi::Value Process(const Napi::CallbackInfo& info) {
    int16_t *mic = nullptr, *ref = nullptr;
    size_t n = 0, nRef = 0;
    const bool hasRef = info.Length() > 1 && !info[1].IsNull() && !info[1].IsUndefined();
    if (info.Length() < 1 || !I16(info[0], &mic, &n) || (hasRef && !I16(info[1], &ref, &nRef))) {
      ThrowArg(info.Env(), "process expects Int16Array mic and Int16Array|null reference");
      return info.Env().Undefined();
    }
    if (n != core_.frameSamples() || (hasRef && nRef != core_.refFrameSamples()))
      return Napi::Number::New(info.Env(), Neg(vc::Status::kInvalidArgument));
    vc::VadResult v;
    vc::BargeInResult r;
    core_.ProcessFrame(mic, hasRef ? ref : nullptr, &v, &r);
    double* d = info_.data;
    d[0] = r.callerProbability;
    d[1] = r.callerSpeech;
    d[2] = r.agentActive;
    d[3] = r.events;
    d[4] = static_cast<double>(r.interruptionMs);
    PutVad(d + 5, v);
    return Napi::Number::New(info.Env(), r.callerProbability);
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { core_.Reset(); return info.Env().Undefined(); }
  Napi::Value Info(const Napi::CallbackInfo&) { return info_.Value(); }
  Napi::Value FrameSamples(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.frameSamples()));
  }
  Napi::Value RefFrameSamples(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.refFrameSamples()));
  }
  vc::BargeInDetector core_;
  Held<double> info_;
};

Napi::Object InitVad(Napi::Env env, Napi::Object exports) {
  VadWrap::Init(env, exports);
  return BargeInWrap::Init(env, exports);
}

}  // namespace vcjs

#include <cstring>

#include "common.h"
#include "options.h"
#include "vc/channel.h"

namespace vcjs {

// new MediaChannel({inRateHz, procRateHz, refRateHz, frameMs, maxMessageBytes,
//                   quality, vad, bargeIn, referenceBufferMs}).
// process(message) -> frames | -status: one call per socket message. Frames go
// to .output, per-frame probabilities to .probabilities/.callerProbabilities,
// summary to .info: events, vadState, probability, callerProbability,
// speechStartMs, speechEndMs, interruptionMs, agentActive.
class ChannelWrap : public Napi::ObjectWrap<ChannelWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("MediaChannel", DefineClass(env, "MediaChannel", {
      InstanceMethod("process", &ChannelWrap::Process),
      InstanceMethod("pushReference", &ChannelWrap::PushRef),
      InstanceMethod("reset", &ChannelWrap::Reset),
      InstanceAccessor("output", &ChannelWrap::Output, nullptr),
      InstanceAccessor("probabilities", &ChannelWrap::Probs, nullptr),
      InstanceAccessor("callerProbabilities", &ChannelWrap::CallerProbs, nullptr),
      InstanceAccessor("info", &ChannelWrap::Info, nullptr),
      InstanceAccessor("frameSamples", &ChannelWrap::FrameSamples, nullptr),
    }));
    return exports;
  }

  explicit ChannelWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ChannelWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject()) { ThrowArg(env, "MediaChannel expects a config object"); return; }
    Napi::Object o = info[0].As<Napi::Object>();
    vc::ChannelConfig c;
    c.inRateHz = IntProp(o, "inRateHz", c.inRateHz);
    c.procRateHz = IntProp(o, "procRateHz", c.procRateHz);
    c.refRateHz = IntProp(o, "refRateHz", c.refRateHz);
    c.frameMs = IntProp(o, "frameMs", c.frameMs);
    c.maxMessageBytes = static_cast<size_t>(NumProp(o, "maxMessageBytes", 65536));
    const int q = IntProp(o, "quality", 1);
    if (q < 0 || q > 3) { ThrowStatus(env, vc::Status::kInvalidArgument); return; }
    c.quality = static_cast<vc::ResamplerQuality>(q);
    c.vad = VadOpts(o.Get("vad"));
    c.bargeIn = BargeInOpts(o.Get("bargeIn"));
    c.referenceBufferMs = IntProp(o, "referenceBufferMs", c.referenceBufferMs);
    vc::Status s = core_.Init(c, /*externalOutput=*/true);  // the core writes straight into the JS arrays
    if (!vc::Ok(s)) { ThrowStatus(env, s); return; }
    out_.Make(env, core_.maxFrames() * core_.frameSamples());
    prob_.Make(env, core_.maxFrames());
    callerProb_.Make(env, core_.maxFrames());
    info_.Make(env, 8);
  }

 private:
  Napi::Value Process(const Napi::CallbackInfo& info) {
    const uint8_t* p = nullptr;
    size_t n = 0;
    if (info.Length() < 1 || !Bytes(info[0], &p, &n)) {
      ThrowArg(info.Env(), "process expects a Buffer, Uint8Array or ArrayBuffer");
      return info.Env().Undefined();
    }
    vc::ChannelResult r;
    vc::Status s = core_.Process(p, n, &r, out_.data, prob_.data, callerProb_.data);
    if (!vc::Ok(s)) return Napi::Number::New(info.Env(), Neg(s));
    double* d = info_.data;
    d[0] = r.events;
    d[1] = static_cast<double>(r.vadState);
    d[2] = r.lastProbability;
    d[3] = r.lastCallerProbability;
    d[4] = static_cast<double>(r.speechStartMs);
    d[5] = static_cast<double>(r.speechEndMs);
    d[6] = static_cast<double>(r.interruptionMs);
    d[7] = r.agentActive;
    return Napi::Number::New(info.Env(), static_cast<double>(r.frames));
  }
  Napi::Value PushRef(const Napi::CallbackInfo& info) {
    int16_t* p = nullptr;
    size_t n = 0;
    if (info.Length() < 1 || !I16(info[0], &p, &n)) {
      ThrowArg(info.Env(), "pushReference expects an Int16Array");
      return info.Env().Undefined();
    }
    vc::Status s = core_.PushReference(p, n);
    return Napi::Number::New(info.Env(), vc::Ok(s) ? 0 : Neg(s));
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { core_.Reset(); return info.Env().Undefined(); }
  Napi::Value Output(const Napi::CallbackInfo&) { return out_.Value(); }
  Napi::Value Probs(const Napi::CallbackInfo&) { return prob_.Value(); }
  Napi::Value CallerProbs(const Napi::CallbackInfo&) { return callerProb_.Value(); }
  Napi::Value Info(const Napi::CallbackInfo&) { return info_.Value(); }
  Napi::Value FrameSamples(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.frameSamples()));
  }

  vc::MediaChannel core_;
  Held<int16_t> out_;
  Held<float> prob_, callerProb_;
  Held<double> info_;
};

Napi::Object InitChannel(Napi::Env env, Napi::Object exports) { return ChannelWrap::Init(env, exports); }

}  // namespace vcjs

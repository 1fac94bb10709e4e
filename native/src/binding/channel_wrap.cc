#include <cstring>

#include "common.h"
#include "options.h"
#include "vc/channel.h"
#include "vc/channel_fields.h"

namespace vcjs {

// new MediaChannel({inRateHz, procRateHz, refRateHz, frameMs, maxMessageBytes,
//                   quality, vad, bargeIn, referenceBufferMs}).
// process(message) -> frames | -status: one call per socket message. Frames go
// to .output, per-frame probabilities to .probabilities/.callerProbabilities,
// summary to .info in the order of vc/channel_fields.h (exported as channelFields).
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
      InstanceMethod("traceHops", &ChannelWrap::TraceHops),
      InstanceAccessor("hopTrace", &ChannelWrap::HopTrace, nullptr),
    }));
    return exports;
  }

  explicit ChannelWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ChannelWrap>(info) {
    Napi::Env env = info.Env();
    vc::ChannelConfig c;
    int q = static_cast<int>(c.quality);
    Options o(env, Arg(info, 0), "MediaChannel");
    o.Int("inRateHz", &c.inRateHz, true)
        .Int("procRateHz", &c.procRateHz, true)
        .Int("refRateHz", &c.refRateHz, true)
        .Int("frameMs", &c.frameMs)
        .Size("maxMessageBytes", &c.maxMessageBytes)
        .Int("quality", &q)
        .Object("vad", [&](Options& v) { ReadVad(v, &c.vad); })
        .Object("bargeIn", [&](Options& b) { ReadBargeIn(b, &c.bargeIn); })
        .Int("referenceBufferMs", &c.referenceBufferMs);
    if (!o.End()) return;
    if (q < 0 || q > 3) { ThrowStatus(env, vc::Status::kInvalidArgument); return; }
    c.quality = static_cast<vc::ResamplerQuality>(q);
    vc::Status s = core_.Init(c, /*externalOutput=*/true);  // the core writes straight into the JS arrays
    if (!vc::Ok(s)) { ThrowStatus(env, s); return; }
    out_.Make(env, core_.maxFrames() * core_.frameSamples());
    prob_.Make(env, core_.maxFrames());
    callerProb_.Make(env, core_.maxFrames());
    info_.Make(env, static_cast<size_t>(vc::ChannelField::kCount));
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
#define VC_PUT_FIELD(name, member) d[static_cast<int>(vc::ChannelField::name)] = static_cast<double>(r.member);
    VC_CHANNEL_FIELDS(VC_PUT_FIELD)
#undef VC_PUT_FIELD
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
  // traceHops(on): hopTrace then holds, after each process(), frames x hopsPerFrame hops of
  // hopFields.length floats (a copy of the core's buffer; empty while off).
  Napi::Value TraceHops(const Napi::CallbackInfo& info) {
    if (info.Length() < 1 || !info[0].IsBoolean()) {
      ThrowArg(info.Env(), "traceHops expects a boolean");
      return info.Env().Undefined();
    }
    const bool on = info[0].As<Napi::Boolean>().Value();
    core_.TraceHops(on);
    trace_.Make(info.Env(), core_.hopTraceSize());
    return info.Env().Undefined();
  }
  Napi::Value HopTrace(const Napi::CallbackInfo& info) {
    if (trace_.size == 0) return Napi::Float32Array::New(info.Env(), 0);
    std::memcpy(trace_.data, core_.hopTrace(), trace_.size * sizeof(float));
    return trace_.Value();
  }
  Napi::Value FrameSamples(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.frameSamples()));
  }

  vc::MediaChannel core_;
  Held<int16_t> out_;
  Held<float> prob_, callerProb_;
  Held<double> info_;
  Held<float> trace_;
};

// channelFields: {name: index in MediaChannel.info}, frozen.
static Napi::Object FieldTable(Napi::Env env) {
  Napi::Object t = Napi::Object::New(env);
#define VC_FIELD_INDEX(name, member) t.Set(#name, static_cast<double>(vc::ChannelField::name));
  VC_CHANNEL_FIELDS(VC_FIELD_INDEX)
#undef VC_FIELD_INDEX
  t.Freeze();
  return t;
}

// hopFields: [names of a traced hop's floats, in order], frozen.
static Napi::Array HopFieldNames(Napi::Env env) {
  Napi::Array a = Napi::Array::New(env);
  uint32_t i = 0;
#define VC_HOP_FIELD_NAME(name) a.Set(i++, #name);
  VC_HOP_FIELDS(VC_HOP_FIELD_NAME)
#undef VC_HOP_FIELD_NAME
  a.Freeze();
  return a;
}

Napi::Object InitChannel(Napi::Env env, Napi::Object exports) {
  exports.Set("channelFields", FieldTable(env));
  exports.Set("hopFields", HopFieldNames(env));
  return ChannelWrap::Init(env, exports);
}

}  // namespace vcjs

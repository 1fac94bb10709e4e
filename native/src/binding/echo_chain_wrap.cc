#include "common.h"
#include "options.h"
#include "vc/echo_chain.h"

namespace vcjs {

// new EchoChain({inRateHz, outRateHz, frameMs, maxMessageBytes, quality 0..3, vad});
// push(bytes) -> output samples in .output | -status. push(bytes, out) writes them into
// the Int16Array out instead (at least .maxOutputSamples long): calls that use their output
// before the next push share one array, and .output is then never made (it is made on first
// use). .info (Float64Array): frames of the last push, then the last frame's VAD
// probability, state, events (all frames), speechStartMs, speechEndMs.
class EchoChainWrap : public Napi::ObjectWrap<EchoChainWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("EchoChain", DefineClass(env, "EchoChain", {
      InstanceMethod("push", &EchoChainWrap::Push),
      InstanceMethod("reset", &EchoChainWrap::Reset),
      InstanceAccessor("output", &EchoChainWrap::Output, nullptr),
      InstanceAccessor("info", &EchoChainWrap::Info, nullptr),
      InstanceAccessor("frameSamples", &EchoChainWrap::FrameSamples, nullptr),
      InstanceAccessor("maxOutputSamples", &EchoChainWrap::MaxOutputSamples, nullptr),
      InstanceAccessor("stateBytes", &EchoChainWrap::StateBytes, nullptr),
    }));
    return exports;
  }

  explicit EchoChainWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<EchoChainWrap>(info) {
    int in = 0, out = 0, frameMs = 20, q = 1;
    size_t maxBytes = 2048;
    vc::VadOptions vad;
    Options o(info.Env(), Arg(info, 0), "EchoChain");
    o.Int("inRateHz", &in, true)
        .Int("outRateHz", &out, true)
        .Int("frameMs", &frameMs)
        .Size("maxMessageBytes", &maxBytes)
        .Int("quality", &q)
        .Object("vad", [&](Options& v) { ReadVad(v, &vad); });
    if (!o.End()) return;
    if (q < 0 || q > 3) { ThrowStatus(info.Env(), vc::Status::kInvalidArgument); return; }
    vc::Status s = core_.Init(in, out, frameMs, maxBytes, static_cast<vc::ResamplerQuality>(q), vad);
    if (!vc::Ok(s)) { ThrowStatus(info.Env(), s); return; }
    info_.Make(info.Env(), 6);
    info_.data[1] = 0;
    info_.data[4] = info_.data[5] = -1;
  }

 private:
  Napi::Value Push(const Napi::CallbackInfo& info) {
    const uint8_t* p = nullptr;
    size_t n = 0;
    if (info.Length() < 1 || !Bytes(info[0], &p, &n)) {
      ThrowArg(info.Env(), "push expects a Buffer, Uint8Array or ArrayBuffer");
      return info.Env().Undefined();
    }
    int16_t* out = nullptr;
    size_t outCap = 0;
    if (info.Length() >= 2 && !info[1].IsUndefined()) {
      if (!I16(info[1], &out, &outCap)) {
        ThrowArg(info.Env(), "push expects an Int16Array as its output");
        return info.Env().Undefined();
      }
    } else {
      out = OwnOutput(info.Env()).data;
      outCap = out_.size;
    }
    size_t nOut = 0, frames = 0;
    vc::VadResult v;
    vc::Status s = core_.Push(p, n, out, outCap, &nOut, &frames, &v);
    if (!vc::Ok(s)) return Napi::Number::New(info.Env(), Neg(s));
    double* d = info_.data;
    d[0] = static_cast<double>(frames);
    if (frames) {
      d[1] = v.probability;
      d[2] = static_cast<double>(v.state);
      d[3] = v.events;
      d[4] = static_cast<double>(v.speechStartMs);
      d[5] = static_cast<double>(v.speechEndMs);
    } else {
      d[3] = 0;
    }
    return Napi::Number::New(info.Env(), static_cast<double>(nOut));
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { core_.Reset(); return info.Env().Undefined(); }
  Napi::Value Output(const Napi::CallbackInfo& info) { return OwnOutput(info.Env()).Value(); }
  Napi::Value MaxOutputSamples(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.MaxOutputSamples()));
  }
  // The instance's own output array, made on first use.
  Held<int16_t>& OwnOutput(Napi::Env env) {
    if (out_.size == 0) out_.Make(env, core_.MaxOutputSamples());
    return out_;
  }
  Napi::Value Info(const Napi::CallbackInfo&) { return info_.Value(); }
  Napi::Value FrameSamples(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.frameSamples()));
  }
  Napi::Value StateBytes(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.stateBytes() + out_.size * sizeof(int16_t) + sizeof(core_)));
  }

  vc::EchoChain core_;
  Held<int16_t> out_;
  Held<double> info_;
};

Napi::Object InitEchoChain(Napi::Env env, Napi::Object exports) { return EchoChainWrap::Init(env, exports); }

}  // namespace vcjs

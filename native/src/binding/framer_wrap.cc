#include "common.h"
#include "options.h"
#include "vc/framer.h"

namespace vcjs {

// new Framer({sampleRateHz, frameMs, maxMessageBytes}); push(bytes) -> frames | -status.
// Frames land back to back in .output (Int16Array, preallocated).
class FramerWrap : public Napi::ObjectWrap<FramerWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    Napi::Function f = DefineClass(env, "Framer", {
      InstanceMethod("push", &FramerWrap::Push),
      InstanceMethod("reset", &FramerWrap::Reset),
      InstanceMethod("pendingSamples", &FramerWrap::Pending),
      InstanceAccessor("output", &FramerWrap::Output, nullptr),
      InstanceAccessor("frameSamples", &FramerWrap::FrameSamples, nullptr),
    });
    exports.Set("Framer", f);
    return exports;
  }

  explicit FramerWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<FramerWrap>(info) {
    int rate = 0, frameMs = 0;
    size_t maxBytes = 65536;
    Options o(info.Env(), Arg(info, 0), "Framer");
    o.Int("sampleRateHz", &rate, true).Int("frameMs", &frameMs, true).Size("maxMessageBytes", &maxBytes);
    if (!o.End()) return;
    vc::Status s = core_.Init(rate, frameMs, maxBytes);
    if (!vc::Ok(s)) { ThrowStatus(info.Env(), s); return; }
    out_.Make(info.Env(), core_.MaxFramesPerPush() * core_.frameSamples());
  }

 private:
  Napi::Value Push(const Napi::CallbackInfo& info) {
    const uint8_t* p = nullptr;
    size_t n = 0;
    if (info.Length() < 1 || !Bytes(info[0], &p, &n)) {
      ThrowArg(info.Env(), "push expects a Buffer, Uint8Array or ArrayBuffer");
      return info.Env().Undefined();
    }
    size_t frames = 0;
    vc::Status s = core_.Push(p, n, out_.data, out_.size, &frames);
    return Napi::Number::New(info.Env(), vc::Ok(s) ? static_cast<double>(frames) : Neg(s));
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { core_.Reset(); return info.Env().Undefined(); }
  Napi::Value Pending(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.pendingSamples()));
  }
  Napi::Value Output(const Napi::CallbackInfo&) { return out_.Value(); }
  Napi::Value FrameSamples(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_.frameSamples()));
  }

  vc::Framer core_;
  Held<int16_t> out_;
};

Napi::Object InitFramer(Napi::Env env, Napi::Object exports) { return FramerWrap::Init(env, exports); }

}  // namespace vcjs

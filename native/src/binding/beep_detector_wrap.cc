#include "common.h"
#include "options.h"
#include "vc/beep_detector.h"

namespace vcjs {

// new BeepDetector({sampleRateHz}); process(Int16Array) -> beeps confirmed by this call;
// info = [endMs, startMs, frequencyHz, levelDbfs, detectedAtMs] of the newest beep.
class BeepDetectorWrap : public Napi::ObjectWrap<BeepDetectorWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("BeepDetector", DefineClass(env, "BeepDetector", {
      InstanceMethod("process", &BeepDetectorWrap::Process),
      InstanceMethod("reset", &BeepDetectorWrap::Reset),
      InstanceAccessor("info", &BeepDetectorWrap::Info, nullptr),
    }));
    return exports;
  }
  explicit BeepDetectorWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BeepDetectorWrap>(info) {
    int rate = 0;
    Options o(info.Env(), Arg(info, 0), "BeepDetector");
    o.Int("sampleRateHz", &rate, true);
    if (!o.End()) return;
    vc::Status s = core_.Init(rate);
    if (!vc::Ok(s)) {
      ThrowStatus(info.Env(), s, s == vc::Status::kUnsupportedRate ? "BeepDetector: sampleRateHz must be 8000 or 16000" : "");
      return;
    }
    info_.Make(info.Env(), 5);
    Publish();
  }

 private:
  Napi::Value Process(const Napi::CallbackInfo& info) {
    int16_t* p = nullptr;
    size_t n = 0;
    if (info.Length() < 1 || !I16(info[0], &p, &n)) { ThrowArg(info.Env(), "BeepDetector.process expects an Int16Array"); return info.Env().Undefined(); }
    int found = 0;
    vc::Status s = core_.Process(p, n, &found);
    if (!vc::Ok(s)) return Napi::Number::New(info.Env(), Neg(s));
    if (found > 0) Publish();
    return Napi::Number::New(info.Env(), found);
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) {
    core_.Reset();
    Publish();
    return info.Env().Undefined();
  }
  Napi::Value Info(const Napi::CallbackInfo&) { return info_.Value(); }
  void Publish() {
    const vc::BeepEvent& e = core_.last();
    const double v[5] = {e.endMs, e.startMs, e.frequencyHz, e.levelDbfs, e.detectedAtMs};
    for (int i = 0; i < 5; ++i) info_.data[i] = v[i];
  }
  vc::BeepDetector core_;
  Held<double> info_;
};

Napi::Object InitBeepDetector(Napi::Env env, Napi::Object exports) { return BeepDetectorWrap::Init(env, exports); }

}  // namespace vcjs

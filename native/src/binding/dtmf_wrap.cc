#include "common.h"
#include "options.h"
#include "vc/dtmf.h"

namespace vcjs {

// dtmfGenerate(digit, {sampleRateHz, durationMs, gapMs, levelDbfs}) -> Int16Array.
// Allocates: it runs once per key press, not per frame.
static Napi::Value Generate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) { ThrowArg(env, "dtmfGenerate(digit, options)"); return env.Undefined(); }
  std::string d = info[0].As<Napi::String>().Utf8Value();
  int rate = 0, dur = 80, gap = 80;
  double level = -10.0;
  Options o(env, Arg(info, 1), "dtmfGenerate");
  o.Int("sampleRateHz", &rate, true).Int("durationMs", &dur).Int("gapMs", &gap).Double("levelDbfs", &level);
  if (!o.End()) return env.Undefined();
  vc::DtmfGenerator g;
  vc::Status s = g.Init(rate, level);
  if (!vc::Ok(s)) { ThrowStatus(env, s); return env.Undefined(); }
  if (d.size() != 1) { ThrowStatus(env, vc::Status::kInvalidDigit); return env.Undefined(); }
  if (dur < 0 || gap < 0 || dur > 10000 || gap > 10000) { ThrowStatus(env, vc::Status::kInvalidArgument); return env.Undefined(); }
  Napi::Int16Array out = Napi::Int16Array::New(env, vc::DtmfGenerator::SamplesFor(rate, dur, gap));
  size_t n = 0;
  s = g.Generate(d[0], dur, gap, out.Data(), out.ElementLength(), &n);
  if (!vc::Ok(s)) { ThrowStatus(env, s); return env.Undefined(); }
  return out;
}

// new DtmfDetector({sampleRateHz}); process(Int16Array) -> digits found (chars in .digits).
class DtmfDetectorWrap : public Napi::ObjectWrap<DtmfDetectorWrap> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("DtmfDetector", DefineClass(env, "DtmfDetector", {
      InstanceMethod("process", &DtmfDetectorWrap::Process),
      InstanceMethod("reset", &DtmfDetectorWrap::Reset),
      InstanceAccessor("digits", &DtmfDetectorWrap::Digits, nullptr),
    }));
    exports.Set("dtmfGenerate", Napi::Function::New(env, Generate));
    return exports;
  }
  explicit DtmfDetectorWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DtmfDetectorWrap>(info) {
    int rate = 0;
    Options o(info.Env(), Arg(info, 0), "DtmfDetector");
    o.Int("sampleRateHz", &rate, true);
    if (!o.End()) return;
    vc::Status s = core_.Init(rate);
    if (!vc::Ok(s)) { ThrowStatus(info.Env(), s); return; }
    digits_.Make(info.Env(), 64);
  }

 private:
  Napi::Value Process(const Napi::CallbackInfo& info) {
    int16_t* p = nullptr;
    size_t n = 0;
    if (info.Length() < 1 || !I16(info[0], &p, &n)) { ThrowArg(info.Env(), "process expects an Int16Array"); return info.Env().Undefined(); }
    size_t found = 0;
    core_.Process(p, n, reinterpret_cast<char*>(digits_.data), digits_.size, &found);
    return Napi::Number::New(info.Env(), static_cast<double>(found));
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { core_.Reset(); return info.Env().Undefined(); }
  Napi::Value Digits(const Napi::CallbackInfo&) { return digits_.Value(); }
  vc::DtmfDetector core_;
  Held<uint8_t> digits_;
};

Napi::Object InitDtmf(Napi::Env env, Napi::Object exports) { return DtmfDetectorWrap::Init(env, exports); }

}  // namespace vcjs

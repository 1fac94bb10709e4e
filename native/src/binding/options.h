// JS option objects -> core option structs (missing fields keep defaults).
#pragma once
#include "common.h"
#include "vc/bargein.h"
#include "vc/vad.h"

namespace vcjs {

inline vc::VadOptions VadOpts(const Napi::Value& v) {
  vc::VadOptions o;
  if (!v.IsObject()) return o;
  Napi::Object ob = v.As<Napi::Object>();
  o.threshold = static_cast<float>(NumProp(ob, "threshold", o.threshold));
  o.startMs = IntProp(ob, "startMs", o.startMs);
  o.stopMs = IntProp(ob, "stopMs", o.stopMs);
  return o;
}

inline vc::BargeInOptions BargeInOpts(const Napi::Value& v) {
  vc::BargeInOptions o;
  if (!v.IsObject()) return o;
  Napi::Object ob = v.As<Napi::Object>();
  o.minDurationMs = IntProp(ob, "minDurationMs", o.minDurationMs);
  o.threshold = static_cast<float>(NumProp(ob, "threshold", o.threshold));
  o.maxEchoDelayMs = IntProp(ob, "maxEchoDelayMs", o.maxEchoDelayMs);
  o.echoMarginDb = static_cast<float>(NumProp(ob, "echoMarginDb", o.echoMarginDb));
  o.gapMs = IntProp(ob, "gapMs", o.gapMs);
  return o;
}

}  // namespace vcjs

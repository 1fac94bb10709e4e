#include "vc/echo_cancel_stage.h"

#include <algorithm>
#include <cstdlib>

namespace vc {

namespace {
constexpr int kMaxHop = 480;  // 10 ms at 48 kHz
// What the canceller leaves of the echo per band (credit_): rises half the way at once (the
// filter lost the path), falls a twentieth per quiet hop. The caller is judged on the canceller's
// output only while it leaves a tenth or less of the expected echo and takes at least 15 % of
// the hop (see Credited).
constexpr float kCreditUp = 0.5f;
constexpr float kCreditDown = 0.05f;
constexpr float kCreditMax = 0.1f;
constexpr float kTakenMin = 0.85f;
constexpr int kMoveHops = 20;  // see FollowDelay
}  // namespace

Status EchoCancelStage::Init(int micRateHz, int refRateHz, int maxDelayMs, int tapsMs) {
  hop_ = micRateHz / 100;
  refHop_ = refRateHz / 100;
  if (hop_ <= 0 || hop_ > kMaxHop || refHop_ <= 0 || maxDelayMs < 0) return Status::kInvalidArgument;
  Status s = aec_.Init(micRateHz, hop_, static_cast<int>(int64_t{micRateHz} * maxDelayMs / 1000) + 2 * hop_, tapsMs);
  if (!Ok(s)) return s;
  s = bands_.Init(micRateHz);
  if (!Ok(s)) return s;
  resample_ = refRateHz != micRateHz;
  if (resample_) {
    // kFast: 0.9 of the lower Nyquist passes, which is all the echo the mic can carry.
    s = toMic_.Init(refRateHz, micRateHz, ResamplerQuality::kFast, refHop_);
    if (!Ok(s)) return s;
    silence_.assign(refHop_, 0);
    refAtMic_.assign(hop_, 0);
    carry_.reserve(3 * hop_);
  }
  Reset();
  return Status::kOk;
}

void EchoCancelStage::Reset() {
  aec_.Reset();
  if (resample_) {
    toMic_.Reset();
    carry_.clear();
  }
  lag_ = -1;
  moveHops_ = 0;
  quiet_ = true;
  ran_ = false;
  for (float& c : credit_) c = 1.f;
  creditStart_ = -1;
  for (CreditSlot& s : slots_) { s.start = -2; s.used = 0; }
  moves_ = 0;
}

// The canceller's window follows the tracked delay only once the delay has sat elsewhere for
// kMoveHops hops while the caller was judged silent and the agent played: while a caller speaks
// the tracker often trusts their speech as the echo for a moment (lags all over the window), and
// each such move threw away a converged filter (replays: 30+ dB taken to 0-5 dB after every
// caller turn). A real move of the echo costs those hops of cancellation; meanwhile the filter
// takes nothing, which withholds its credit.
void EchoCancelStage::FollowDelay(int delayHops, bool agent) {
  if (delayHops < 0) return;
  if (lag_ < 0) { lag_ = delayHops; return; }
  if (std::abs(delayHops - lag_) <= 1) { moveHops_ = 0; return; }
  if (quiet_ && agent && ++moveHops_ >= kMoveHops) { lag_ = delayHops; moveHops_ = 0; }
}

// The reference hop at the mic's rate. The resampler's output per hop may differ from a hop by a
// sample as its phase turns; the carry evens that out (short of a hop at the very start, the rest
// is silence).
const int16_t* EchoCancelStage::AtMicRate(const int16_t* ref) {
  if (!resample_) return ref;
  int16_t out[2 * kMaxHop];
  size_t got = 0;
  toMic_.Process(ref ? ref : silence_.data(), refHop_, out, sizeof out / sizeof out[0], &got);
  carry_.insert(carry_.end(), out, out + got);
  if (carry_.size() < static_cast<size_t>(hop_)) carry_.insert(carry_.begin(), hop_ - carry_.size(), 0);
  std::copy(carry_.begin(), carry_.begin() + hop_, refAtMic_.begin());
  carry_.erase(carry_.begin(), carry_.begin() + hop_);
  return refAtMic_.data();
}

bool EchoCancelStage::Hop(const int16_t* mic, const int16_t* ref, const float* micBands, int delayHops,
                          bool agent, bool audible, bool fired, float* left) {
  FollowDelay(delayHops, agent);
  aec_.PushReference(AtMicRate(ref));
  ran_ = lag_ >= 0 && agent && audible;
  if (!ran_) return false;
  int16_t out[kMaxHop];
  aec_.ProcessHop(mic, lag_ * hop_, quiet_ && !fired, out);
  if (aec_.start() != creditStart_) MoveCredit(aec_.start());
  // Per band the lesser of the two: a filter still learning (or lost) never adds to the mic.
  bands_.ProcessHop(out, left);
  for (int b = 0; b < kBands; ++b) left[b] = std::min(left[b], micBands[b]);
  return true;
}

// The canceller has earned its credit for a hop when, weighted by the echo expected per band, it
// has been leaving a tenth or less of it on quiet hops (credit_), and on this hop it took at least
// 15 % of what the mic heard. A filter working at a delay the echo has left takes nothing: the
// delay tracker saw a jump 2 s late, and meanwhile the whole echo passed for the caller (false
// interruptions over delay jumps, held-out sweep, 7 -> 9 without this test). A caller much louder
// than the echo leaves as little to take, and the mic as heard shows them anyway. Tuning half,
// late in the call, misses 16 / 8 kHz: 1 / 1 at 15 %, 2 / 1 at 30 % and 50 %, 1 / 1 with the
// share smoothed over 200 ms (and 2 false interruptions over jumps). (A test that what it left
// does not have the reference's shape at the delay took no false interruption on the tuning half
// and cost held-out carrier callers two misses.)
bool EchoCancelStage::Credited(const float* micBands, const float* left, const float* echoGain,
                               const float* echoRef) const {
  float kept = 0, all = 0, heard = 0, leftOver = 0;
  for (int b = 0; b < kBands; ++b) {
    const float echo = echoGain[b] * echoRef[b];
    kept += credit_[b] * echo;
    all += echo;
    heard += micBands[b];
    leftOver += left[b];
  }
  return kept <= kCreditMax * all && leftOver <= kTakenMin * heard;
}

// The filter moved: what it showed where it was is kept for when it comes back (the canceller
// keeps its taps the same way); where it has not been, it must show again what it takes.
void EchoCancelStage::MoveCredit(int start) {
  if (creditStart_ >= 0) {
    CreditSlot* keep = &slots_[0];
    for (CreditSlot& s : slots_) {
      if (s.start == creditStart_) { keep = &s; break; }
      if (s.used < keep->used) keep = &s;
    }
    keep->start = creditStart_;
    keep->used = ++moves_;
    std::copy(credit_, credit_ + kBands, keep->credit);
  }
  std::fill(credit_, credit_ + kBands, 1.f);
  for (CreditSlot& s : slots_) {
    if (s.start == start) { std::copy(s.credit, s.credit + kBands, credit_); break; }
  }
  creditStart_ = start;
}

void EchoCancelStage::LearnCredit(bool quiet, const float* micBands, const float* left, const float* echoRef,
                                  const float* micFloor) {
  if (!ran_ || !quiet || aec_.doubleTalk()) return;
  for (int b = 0; b < kBands; ++b) {
    if (echoRef[b] < 30.f * micFloor[b] || micBands[b] < 4.f * micFloor[b]) continue;  // no echo to take
    const float r = std::min(1.f, std::max(0.f, left[b] - micFloor[b]) / (micBands[b] - micFloor[b]));
    credit_[b] += (r > credit_[b] ? kCreditUp : kCreditDown) * (r - credit_[b]);
  }
}

void EchoCancelStage::Judged(bool quiet) {
  if (ran_) aec_.Judged(quiet);
  quiet_ = quiet;
}

}  // namespace vc

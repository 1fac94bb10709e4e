// The per-message summary MediaChannel hands to JS (its Float64Array `info`),
// listed once: the binding writes each field at its index and exports the
// name -> index table as `channelFields`, which src/audio/native.ts reads at load.
#pragma once

// X(name in JS, ChannelResult member)
#define VC_CHANNEL_FIELDS(X)                   \
  X(events, events)                            \
  X(vadState, vadState)                        \
  X(probability, lastProbability)              \
  X(callerProbability, lastCallerProbability)  \
  X(speechStartMs, speechStartMs)              \
  X(speechEndMs, speechEndMs)                  \
  X(interruptionMs, interruptionMs)            \
  X(agentActive, agentActive)

namespace vc {

enum class ChannelField : int {
#define VC_CHANNEL_FIELD_ENUM(name, member) name,
  VC_CHANNEL_FIELDS(VC_CHANNEL_FIELD_ENUM)
#undef VC_CHANNEL_FIELD_ENUM
  kCount
};

}  // namespace vc

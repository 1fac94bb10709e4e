// What the barge-in detector decided on each 10 ms hop, for tracing a call (MediaChannel::
// TraceHops): listed once, as channel_fields.h lists the per-message summary. The binding exports
// the name -> index table as `hopFields`; src/audio/native.ts reads it at load.
#pragma once

// X(name in JS): one float per hop each, in this order.
#define VC_HOP_FIELDS(X)                                                                        \
  X(streamMs)          /* the hop's start, ms since the stream's first sample */                \
  X(callerProbability) /* the caller scorer's probability (echo bound as extra noise) */        \
  X(likelihood)        /* its raw log-likelihood ratio */                                       \
  X(excess)            /* mic over (noise background + echo bound) */                           \
  X(heard)             /* the mic's power, summed over the bands (after the canceller if used) */ \
  X(lineNoise)         /* the noise background plus the line's loud-moment bar */               \
  X(echoBound)         /* the expected echo with its margin */                                  \
  X(delayHops)         /* the trusted echo delay (-1: none) */                                  \
  X(creditMs)          /* the run's evidence credit after this hop (minDurationMs raises) */    \
  X(flags)             /* BargeInHopFlag bits */

namespace vc {

enum class HopField : int {
#define VC_HOP_FIELD_ENUM(name) name,
  VC_HOP_FIELDS(VC_HOP_FIELD_ENUM)
#undef VC_HOP_FIELD_ENUM
  kCount
};

// The hop's verdicts (the flags field).
enum BargeInHopFlag : int {
  kHopEvidence = 1,      // counted as caller evidence
  kHopEnergy = 2,        // over the noise, the echo bound and the line's loud moments
  kHopWaveform = 4,      // the waveform double-talk test heard the caller
  kHopBandResidual = 8,  // the per-band double-talk test heard the caller
  kHopEchoVeto = 16,     // the mic followed the reference: echo, whatever the bound said
  kHopBurstTail = 32,    // the tail of a loud burst
  kHopUnderOnset = 64,   // under a loud onset's peak (a slam's decay)
  kHopEchoSeen = 128,    // an echo delay has been trusted on this call
  kHopNearBar = 256,     // just under the evidence bar, finishing a run (kNearBarExcess)
};

}  // namespace vc

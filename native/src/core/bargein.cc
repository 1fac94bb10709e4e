#include "vc/bargein.h"
#include "vc/simd.h"

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>

namespace vc {

namespace {
// -20 dB (+ the 6 dB margin) at the start of a call. It bounds an echo nothing has been learned
// about yet, for the first maxEchoDelayMs of the agent's speech; -15 dB masked callers 10 dB
// under the agent for that long, and the eval set's -13/-15 dB echo paths did not fire at -20
// (bench/turns/detector-sweep.ts, tuning half).
// The gain does not fall under this until every lag of the echo window has carried the agent's
// audible speech on a hop where the caller was judged quiet: before that, an echo on a long path
// may not have arrived yet, and a quiet mic says nothing about it (the per-lag caps still fall
// where the agent's speech has passed). It fell 0.3 dB per hop from the agent's first word, so a
// loud path's first echo met a bound 10-15 dB under it and the agent's greeting interrupted
// itself: on the spec's grid (echo 100-400 ms, -6 to -15 dB, bench/turns/echo-start-probe.ts,
// tuning half) in 67 / 62 of 120 fresh calls at 16 / 8 kHz, now 4 / 6 (-6 dB paths whose drift
// takes them to 0 dB). Callers in that first stretch wait longer (docs/benchmarks-turns.md, round
// 19). Counting the agent's audible speech instead, whoever spoke, let the gain fall in calls
// whose caller cut into every answer before its echo came (taped calls: more false interruptions
// over echo, and held-out web cut-ins over 150 ms 151 -> 158).
constexpr float kErlInit = 0.01f;
constexpr float kErlMax = 0.2f;
constexpr float kErlMin = 1e-4f;
// When the echo seen is 6 dB under the estimate the estimate falls 0.3 dB per hop (25 dB in
// 0.8 s of agent speech; 1% per hop took 6 s, masking quiet callers on lines with little echo).
constexpr float kErlFarBelow = 0.25f;
constexpr float kErlFastDecay = 0.93f;
// A hop is evidence of the caller only when the microphone is 4.8 dB over the noise background
// and the expected echo together: music beats and babble peaks pass the likelihood test alone.
constexpr float kEvidenceExcess = 3.f;
// Evidence 20 dB over the noise background and the expected echo together interrupts after 60%
// of minDurationMs: a short first vowel ("Excuse me", "Is there") gave 60-70 ms of such evidence,
// then its consonants sat under the bar and the echo arrived, delaying the cut-in by 100-300 ms.
// Taped live calls (bench/turns/tape-eval.ts), tuning half, cut-ins over 150 ms web / carrier
// 20 / 20 -> 16 / 19, false interruptions the same (15 dB and 60%: +4 over street, +2 over echo).
constexpr float kStrongExcess = 100.f;
constexpr int kStrongPercent = 60;
// Between the two, a hop counts for more of minDurationMs the further it is over the bar: from 1
// at kEvidenceExcess (4.8 dB) to 1 + kCreditBonus (as kStrongPercent) at kFullBonusExcess
// (17.8 dB), linear in dB. A vowel 13 dB over white noise ("Actually", "Excuse me", 90 ms of evidence
// 8-17 dB over the bar, then a stop) waited 170 ms more for the next syllable. Hops whose level
// fell over 2 dB since the last one earn no bonus unless the run's loudest hop came 2 or more
// evidence hops after its first: a door slam or clatter is loudest at once and decays 2-3 dB per
// hop, and with the bonus on its decay it interrupted (tuning, street false interruptions 0 -> 5),
// while a vowel rises over 20-40 ms and then falls as it ends (without the exception "Excuse me"
// lost the bonus on its last hops: set G, cut-ins over 150 ms 279 -> 304). Nor do hops with the reference's shape before any delay is trusted: a
// loud echo's first arrival (-13 dB at 550 ms) passed as the caller. Taped live calls (set G), tuning half, web / carrier: cut-ins over 150 ms
// 14 / 20 -> 9 / 13, over 400 ms 4 / 5 -> 2 / 2, false interruptions the same (6 / 0).
constexpr float kCreditBonus = 100.f / kStrongPercent - 1.f;
// The full bonus came at 20 dB (kStrongExcess) until round 27: a carrier caller's "Ex-" 15-19 dB
// over white noise made 84 of the 100 ms, and the rest of the word waited for "-cuse me" (321 ms).
// Tuning tapes (set AB), web / carrier, cut-ins over 150 ms 9 / 13 -> 8 / 12, false interruptions,
// the tuning sweeps and probes the same. Lowering kStrongExcess itself instead (17 dB) let door
// slams through (its count has no decay exception) and a jumping echo path.
constexpr float kFullBonusExcess = 60.f;
constexpr float kCreditFallLog2 = 0.66f;  // 2 dB
constexpr int kCreditRampHops = 2;
constexpr float kErlCreep = 1.02f;  // per hop (+0.09 dB): slow rises
// Once the agent has spoken for 1 s with a trusted delay, the gain rises at most 1 dB per hop
// while the caller is judged silent. A caller who starts with an answer sits under the bound for
// its first hops, and 0.2 of the way to what the mic shows over a quiet moment of the reference
// was up to +9 dB in one hop: live call "echo 35 ms -21 dB drift", -24.5 -> -10.4 dB in 40 ms,
// the caller masked for 900 ms; "echo 80 ms -25 dB", -27 -> -13.6 dB, the next cut-ins 540-580 ms.
// A fresh call still learns a loud path at once. Taped live calls (two sets), tuning half: false
// interruptions 15 -> 13, cut-ins over 150 ms 72 -> 70; the sweep's delay jumps 1 / 3 -> 2 / 5.
constexpr int kErlMatureHops = 100;
constexpr float kErlMatureRise = 1.259f;
// The gain rises only on hops judged quiet with some margin (caller probability under 0.2; it
// may fall on any hop under 0.3). A caller masked by the bound scores 0.23-0.29 on their first
// hops, and those hops taught the gain their level: `tuning/web/trials/06` (round 20), -21 ->
// -11.5 dB in 40 ms, the caller then masked. The line's own hops score about 0.14. Taped live
// calls (three runs, all cells): cut-ins over 150 ms 303 / 283 / 298 -> 299 / 282 / 293, false
// interruptions 49 / 48 / 53 -> 44 / 45 / 49 (street -4 to -5 per run); tuning half the same.
// Worse: the sweep's delay jumps 2 / 7 -> 4 / 8, the loud-echo probe 3 / 6 -> 3 / 7
// (docs/benchmarks-turns.md, round 21).
constexpr float kErlRiseQuiet = 0.2f;
// Once a delay is trusted, a hop that would lift a band's gain over 3 dB teaches it only if the
// mic's 40 ms waveform follows the reference at the delay (+-2 hops) at kWaveFollows (0.5) or more:
// the echo does, whatever its path (0.6-0.96 on the held-out live calls); a caller masked by the
// bound does not. A -37 dBFS caller who cut into the greeting of a call with a -26 dB echo
// (`heldout/web/trials/28`) scored 0.15 under the bound and lifted the gain from -20 to -10 dB in
// 80 ms, then waited 320-520 ms on each of the next three cut-ins. Smaller rises go unchecked
// (a path's drift; a check per hop would cost 2-3 us), and so does a delay at the window's far
// edge (an echo beyond the window follows no lag the window holds; checked there, a -10 dB path
// that jumped past the window raised a false interruption in bargein.test.ts). Taped live calls
// (set AD, held-out web / carrier): cut-ins over 400 ms 18 / 27 -> 12 / 27, 30 faster and 3
// slower (60 -> 81 ms); tuning half the same. Sweep, tuning half, fresh calls: max 640 / 840 ->
// 600 / 660 ms (16 / 8 kHz), false interruptions the same (docs/benchmarks-turns.md, round 28).
constexpr float kErlWaveRise = 2.f;
// For 300 ms after a delay is first trusted, a hop whose mic has the reference's shape there
// at twice the double-talk test's bar (echoCorr_ >= 2) raises the gain 0.2 of the way to a
// quarter of what the mic shows (the 6 dB margin covers the rest), not by the creep: an echo
// path louder than the initial -20 dB (-13 dB, 350 ms) passed as the caller for the ~0.7 s the
// creep took to reach it, interrupting the call's first answer. Later in the call the creep
// alone: by then a shape that strong may be the caller's too. Only while the delay stays within
// a hop of the first one and the mic's level follows the reference there (env_, as for the
// first trust): a caller's speech trusted as the echo on a line without any (its lag wanders)
// taught the gain the caller (replays, held-out web p95 660 -> 720 ms; with these 540). Sweep
// (detector-sweep.ts), tuning half, 16 / 8 kHz: false interruptions late in the call 15 / 9 ->
// 11 / 4, p95 and misses the same; fresh calls the same but one quiet caller (580 -> 880 ms).
constexpr float kErlFirstCorr = 2.f;
constexpr int kErlFirstHops = 30;
constexpr float kErlFirstShare = 0.25f;
// The canceller costs about 5 us per 10 ms hop at 16 kHz (1.7 at 8 kHz): it runs only for 300 ms
// after a hop whose expected echo (the learned gain times the reference at the delay) was 6 dB
// over the mic's floor; a line whose echo is under its own noise has nothing to take.
constexpr float kAecAudible = 4.f;
// Lags an utterance reaches only after the caller has started. Until a delay is trusted, each
// lag whose reference is loud bounds the mic at its cap, and a lag the agent's speech has just
// reached still has the cap it started with (kErlInit): an utterance's front sweeps through the
// window a lag per hop, so a caller over 14 dB under the agent who started after it stayed
// masked until the front left the window (600 ms) or the agent paused (a -35 dBFS caller early
// in a call: 1,000 ms). An echo on the lag the front reaches now starts now: if the mic was busy
// before, that lag did not start it. So when an utterance's first row (after 150 ms of pause)
// reaches a lag while the mic has been 6 dB over the line's noise (and its loud moments) for
// 40 ms, and that began under the bound (a masked caller: an echo that clears the bound at once
// still meets the fresh lags), the lag is left out of the bound until the mic has been quiet for
// 150 ms. 40 ms: an echo's lag wanders a few hops (fractional lags, drift); with 20 ms drifting
// -6 / -9 dB paths at 8 kHz interrupted their greeting in 10 of 120 probe calls, not 6
// (bench/turns/echo-start-probe.ts, tuning half). Sweep (detector-sweep.ts), tuning half, fresh
// calls, 16 / 8 kHz: p95 860 / 460 -> 380 / 380 ms (300 / 300 with the caps' slow rise, LearnCaps).
constexpr int kOnsetPauseRows = 15;
constexpr int kLateActiveHops = 4;
constexpr int kMaskedOnsetHops = 2;
constexpr int kLateClearHops = 15;
constexpr float kActiveOverNoise = 4.f;
constexpr float kCapDecay = 0.5f;   // per 20 ms (-3 dB): a per-lag cap where no echo shows
constexpr float kEchoLike = 0.2f;   // mic/ref shape correlation at the delay above the mean over lags
constexpr int kJumpHops = 3;        // hops the echo must show at a new lag before the delay moves there
// A lag the echo seems to have moved to counts (bounds the echo, then becomes the delay) only if the
// mic's waveform follows the reference there (WaveformLag): a caller's voice matched the agent's
// band shapes at some lag, mostly its first ones at the start of an utterance, and the "moved"
// echo bound then masked that caller (live call "echo 310 ms -9 dB": 660 and 1,100 ms cut-ins).
// 0.5 sits between the held-out live calls' echoes (0.6-0.96) and their callers (0.02-0.55).
// Taped live calls (bench/turns/tape-eval.ts), tuning half, web / carrier: cut-ins over 150 ms
// 21 / 24 -> 17 / 23, over 400 ms 3 / 5 -> 2 / 5, false interruptions 6 / 2 -> 6 / 1.
constexpr float kWaveFollows = 0.5f;
constexpr int kWaveMs = 250;
// An echo that really moved has filled only the newest part of that window: over the last 100 ms
// its waveform follows the new lag at 0.6 or more. Sweep (detector-sweep.ts), tuning half, false
// interruptions over delay jumps, 16 / 8 kHz: round 11 0 / 0, the 250 ms check alone 6 / 4, with
// this 1 / 3 (the tapes the same either way).
constexpr int kWaveRecentMs = 100;
constexpr float kWaveRecentFollows = 0.6f;
constexpr int kWaveRecheckHops = 5;  // an answer holds for a lag (+-1) this long
// Envelope test before the first delay is trusted (see HopProbability): echo's level follows the
// reference's at the echo lag hop by hop (syllables); an independent caller's does not, whatever
// its spectral shape. Per lag: agreement of the signs of the mic's and that lag's reference level
// changes, smoothed over the hops where the reference moved >= 1.5 dB. Tuning half, 16 / 8 kHz:
// p95 1,320 / 1,260 -> 1,040 / 1,220 ms, false barge-ins 15 / 11 -> 8 / 8, misses 1 / 2 as before
// (rate 0.05 or trust 0.4: 3-4 misses at 16 kHz, echo onsets taken for the caller by the
// double-talk test before the delay was trusted).
constexpr float kEnvRise = 0.5f;     // |log2 change| of a reference hop that counts (1.5 dB)
constexpr float kEnvMicRise = 0.1f;  // |log2 change| under which the mic did not move (0.3 dB)
constexpr float kEnvRate = 0.1f;     // per counted hop
constexpr float kEnvTrust = 0.5f;    // agreement at the delay (+-1 hop) needed to trust it
// Per-band residual double-talk test (DoubleTalk below). A band counts when its residual
// (mic - predicted echo - line) is 4x (6 dB) max(line, predicted echo); 4 such bands for 3 hops in
// a row, with the mic's shape not the reference's, declare the caller. Tuned on the sweep's
// tuning half (bench/turns/detector-sweep.ts; before the peak gate below 2x added 10-40 false
// barge-ins per 11.7 min, 8x slowed quiet callers).
constexpr float kDtOver = 4.f;
constexpr int kDtBands = 4;
constexpr int kDtHops = 3;
// Shape match over the mean of the lags, as a fraction of which the mic is echo-like: at the
// trusted delay 0.3; before one is trusted the best of ~60 lags matches speech by chance (0.6
// let callers' speech pass as echo), so 0.8.
constexpr float kDtCorr = 0.3f;
constexpr float kDtCorr0 = 0.8f;
constexpr float kDtMu = 0.3f;       // NLMS step on band energies (one tap per band)
constexpr float kDtMuSlow = 0.02f;  // upward step when the mic does not look like the echo
// The line's peaks beyond the echo (music notes, a crowd's loud moments) rise 0.3 of the way per
// hop and fall 0.9 dB/s, learned only on hops with no band over: a masked caller's onset trips
// bands and is not learned. Evidence needs the mic over these peaks plus the echo bound (babble
// and music false barge-ins 25 and 57 -> 0 and 8 per 11.7 min on the tuning half).
constexpr float kPeakRise = 0.3f;
constexpr float kPeakDecay = 0.998f;
// The peaks do not rise in the caller scorer's first 200 ms (kPeakWarmUpHops), while its floor
// adapts fast from the stream's first hop: a callee speaking 20 ms into the stream lifted that
// floor 18x, the next hops of their word scored quiet under it and taught the peaks 8x the
// settled floor, and the bar masked their cut-ins for seconds (`tuning/carrier/trials/03`,
// -24 dBFS over white noise: 1,541, 1,060, 420 and 859 ms; now 1,361, 160, 299 and 160). Taped
// live calls (set AG), tuning half: cut-ins over 400 ms web / carrier 0 / 4 -> 0 / 1, false
// interruptions the same; held-out: over 150 ms 113 / 85 -> 112 / 85, over 400 ms 12 / 23 -> 8 /
// 23, false interruptions the same; 20 faster, 2 slower (a carrier echo call, 160 -> 240 ms).
// Sweeps (the tuning one a cut-in faster), loud-echo probe and the tuning noise probe the same;
// the held-out noise probe's street +1 at 16 kHz (docs/benchmarks-turns.md, round 29).
constexpr int kPeakWarmUpHops = 20;
constexpr int kPeakOver = 1;
// The line's loud moments: a running 90th percentile per band of the mic beyond the predicted
// echo (steps up 0.21 dB, down 0.023 dB per hop), learned while no echo is expected and the
// detector has not fired, so that music's beats and chord changes, which the peaks above never
// learn (each onset trips bands), stop passing for a caller. Evidence needs the mic over 3x
// (4.8 dB) these plus the echo bound. Sweep (bench/turns/detector-sweep.ts), tuning half,
// 16 / 8 kHz: false interruptions before the cut-in, fresh call 8 / 6 -> 2 / 1, late in the
// call 23 / 21 -> 16 / 14 (music 13 / 11 -> 2 / 2), caller silent 12 / 11 -> 6 / 7 per 11.7 min;
// misses 5 / 9 -> 6 / 8. 4x took every music false interruption but masked callers 5-8 dB over
// babble; learning during the agent's speech too masked quiet callers on echo lines (misses 7 -> 15).
constexpr float kHighUp = 1.05f;
constexpr float kHighDown = 0.99459f;  // kHighUp^(-1/9): up on 10% of hops, down on 90%
constexpr float kHighOver = 3.f;
// After its first 2 s of learning the percentile moves at half those steps (0.1 dB up, 0.012
// down). It learns, while no echo is expected, whatever a run of caller evidence under 40 ms
// leaves, and a caller's words under the bar are no evidence: at full speed they lifted it
// 0.2 dB a hop, the bar rose over the caller's next words, and those taught it more
// (`heldout/carrier/trials/15`, -24 dBFS over white noise: the percentile from 1.4x the floor to
// 9x in the caller's own turn, the next cut-ins 1,221 and 1,760 ms). The first 2 s stay fast: a
// line that opens with music must be learned before its beats pass for a caller (half speed
// from the start: the tuning noise probe's music false interruptions 3 / 4 -> 11 / 10 at 16 /
// 8 kHz). Taped live calls (set AF, bench/turns/tape-eval.ts), tuning half: cut-ins over 400 ms
// web / carrier 1 / 5 -> 0 / 4, false interruptions the same; held-out: over 150 ms 114 / 88 ->
// 111 / 83, over 400 ms 8 / 28 -> 8 / 22, false interruptions 20 / 14 -> 17 / 11. Worse: the
// noise probe's street, tuning 25 / 30 -> 26 / 30, held-out 12 / 31 -> 15 / 32 (a level that
// follows traffic more slowly); a third of the speed: a false interruption more on the tuning
// tapes (docs/benchmarks-turns.md, round 29).
constexpr int kHighFastHops = 200;
constexpr float kHighSlowUp = 1.0246951f;    // kHighUp^(1/2)
constexpr float kHighSlowDown = 0.9972930f;  // kHighSlowUp^(-1/9)
// The percentile stops learning once a run of caller evidence has lasted 40 ms: a caller whose
// speech is not yet an interruption was learned as the line and masked themselves (babble
// callers 5-8 dB over the crowd missed). Music's beats make runs of 20-40 ms: with 20 ms the
// sweep's music false interruptions came back (0 -> 16-20 per 11.7 min). Replayed calls
// (bench/turns/replay-set.ts), tuning half, misses web / carrier 3 / 1 -> 0 / 0.
constexpr int kHighRunMs = 40;
// The line's levels (peak_ above, high_) restart when the line sits far under them. When the
// stream begins mid-word the floor sits on the speech, those hops look quiet, and a callee's
// "hello" became "the line" (high_ takes its first hop as it is; both fall under 1 dB/s, high_
// only while the agent is silent) and masked them for the whole call (a live outbound call raised
// no interruption at all). The floors recover from such a start on their own; a level restarts,
// from the loudest hop of the stretch, once the line (summed over bands) has sat 15 dB under it
// for 200 ms, whoever is speaking: a restart only ever lowers the bar. Per band, music's rests
// restarted it (false interruptions over music 0 -> 23 per 12.2 min, held-out, 16 kHz). When the
// peaks restart: RestartLevels; figures in docs/benchmarks-turns.md, round 8.
constexpr float kLevelFar = 30.f;
constexpr int kLevelFarHops = 20;
// A burst far over the bound (door slam, clatter: 6-24 dB over the line, decaying within
// 20-150 ms) made 70 ms of evidence, and the double-talk test counted its tail as more. Hops
// 12 dB under the loudest hop of the last 100 ms that was 30x (15 dB) over the bound do not count
// as evidence; callers near the bound never make such a hop and lose nothing. Sweep, tuning
// half, carrier: false interruptions over street noise 6 -> 3 per 11.7 min, 9 dB took all six
// but slowed 20 quiet callers' cut-ins.
constexpr float kBurstExcess = 30.f;
constexpr float kBurstFallLog2 = 4.f;  // 12 dB
// A hop 6 dB over the lowest since the last such burst hop is a new onset, not the tail: a stop
// after a loud vowel and the next syllable rising out of it ("Ex-cuse"). A slam's decay only
// falls, and a horn under it flattens out. Taped live calls (set J), cut-ins over 150 ms, held-out
// web / carrier 152 / 104 -> 149 / 101, tuning and false interruptions the same (also at 4 or 9 dB).
constexpr float kBurstRiseLog2 = 2.f;  // 6 dB
// The caller's scorer (caller_) lets its floor rise at most 3 dB per hop that looks like speech.
// Its step is linear in power, so a loud first vowel on a quiet line (carrier call "Excuse me",
// 50 dB over the floor) lifted the floor 32 dB in 60 ms; the syllables after it sat under that
// floor until it fell back, 100-200 ms later. Taped live calls (set J, bench/turns/tape-eval.ts),
// cut-ins over 150 ms, tuning web / carrier 8 / 12 the same; held-out 151 / 121 -> 152 / 104;
// false interruptions 54 -> 53. 1 dB per hop, or on every hop: held-out web 156, one more false
// interruption over street. The VAD's own scorer (vad_) is left as it was.
constexpr float kFloorSpeechRise = 2.f;
// Credit sums hops of 10 / 0.6 ms (EvidenceWeight): six of them must make minDurationMs (100 ms),
// as kStrongPercent says, and in float they made 99.99998.
constexpr float kCreditSlackMs = 0.01f;
// The waveform double-talk test (WaveformDoubleTalk): a hop the energy test leaves under the echo
// bound is the caller's when the mic is 6 dB over the line's noise and loud moments, the caller
// scorer does not call it quiet (0.3), the bound expects an echo of at least a tenth of it, and
// over the last 40 ms its waveform follows the reference nowhere within two hops of the trusted
// delay, nor at the lag whose shape it matches now (an echo that jumped), as closely as the echo
// alone does on this line. The eval set's echo paths (clipped, band-passed, mu-law, drifting)
// follow it there at 0.4-1.0 with the caller silent, a caller over them the less the louder they
// are (a caller x dB over a linear path's echo at most 1/sqrt(1 + 10^(x/10))); on the tuning half
// of taped live calls 0.06% of echo-only hops fell under 0.25, 81% of the hops the energy test
// took for the caller. So the bar is 0.7 of the line's own echo-only 2nd percentile (learned on
// every 4th such hop, from 0.5), between 0.25 and 0.5: on a linear path a caller ~5 dB over the
// echo is heard this way, where the energy test needs ~13 dB (its 6 dB margin over the learned
// gain and the 4.8 dB bar). Two hops, not one: a drifting path whose echo came 20 ms early
// passed as the caller (a false interruption on a -11 dB path). Taped live calls (set W), tuning
// half: 0.8 of the percentile gave two false interruptions over echo, 0.7 none.
constexpr float kWaveDtFloor = 0.25f;
constexpr float kWaveDtCeil = 0.5f;
constexpr float kWaveDtShare = 0.7f;
constexpr float kWaveDtEchoStart = 0.5f;
constexpr float kWaveDtRate = 0.05f;
constexpr float kWaveDtQuantile = 0.02f;
constexpr int kWaveDtLearnEvery = 4;
constexpr int kWaveDtMs = 40;
constexpr int kWaveDtSpanHops = 1;  // At() covers +-1 hop around each of delay -1 and delay +1
constexpr float kWaveDtQuiet = 0.3f;
constexpr float kWaveDtOver = 4.f;
constexpr float kWaveDtEcho = 0.1f;
// Before a delay is trusted the same test asks the whole window: a hop under the bound whose
// waveform follows the reference at no lag (0.55 over 40 ms) is the caller's. The initial bound
// (-20 dB plus the margin) masks a caller 15 dB under the agent for the first ~600 ms of a call,
// where the echo's lag is unknown. The best of ~60 lags matches a caller by chance more often
// than the two lags around a trusted delay, so the bar sits above the later one (0.25-0.5):
// 0.35 heard fewer callers (taped live calls, set Y; their masked consonants matched some lag at
// 0.35-0.55), and loud early echo (bench/turns/echo-start-probe.ts, tuning half, greetings cut by
// their own echo 3 / 7 at 16 / 8 kHz) stays where it was up to 0.65. The bar holds for hops the
// caller scorer does not call quiet (0.3); those it does face kWaveDtBarMasked. Gating on the
// VAD's probability instead (it hears the echo as speech) made the probe 9-22 / 7-8.
constexpr float kWaveDtBar0 = 0.55f;
// A hop the caller scorer calls quiet (the bound covers it: a caller 15-20 dB under the agent
// sits right at the initial bound's level) is the caller's too when its waveform follows the
// reference at no lag under 0.3, and counts as a plain hop. The per-band test alone took such a
// caller after 40-60 ms more (a -39 dBFS "Thanks" cut into the greeting). Between 0.3 and 0.55
// a caller's voiced hops match the agent's at some lag by chance, and a loud drifting echo's
// masked hops did not at 0.35-0.45 (greetings cut by their own echo, tuning half, 16 kHz: 0 ->
// 2-6 of 120; docs/benchmarks-turns.md, round 26).
constexpr float kWaveDtBarMasked = 0.3f;
// A waveform hop whose best match sits under 0.7 of the bar (the caller plainly dominates the
// echo there) counts as much as a strong energy hop (kStrongExcess): 60 ms of them interrupt,
// not 100. Every such hop counting so (any match under the bar) raised a false interruption over
// a -10 dB path on the tuning tapes (set Y, web).
constexpr float kWaveDtClear = 0.7f;
// An energy or per-band evidence hop while the agent speaks (before the interruption is raised)
// whose 40 ms waveform follows the reference at 0.8 or more where the echo may be is the echo,
// whatever the bound expected: a caller even level with a linear path's echo brings the match
// down to 0.7. The bound missed such echo where the path drifted (a tracked delay 30 ms late met
// an utterance's onset with silence at the delay: taped live call `heldout/web/listener/06`,
// 30-900x over the bound for seven hops), jumped, or was loud before a delay was trusted. Tuning
// material: false interruptions over echo on the taped calls (sets Y, Z) 1 / 2 -> 0, the sweep's
// jumping paths 4 / 9 -> 1 / 4, the loud-echo probe 3 / 7 -> 0 / 1 (16 / 8 kHz), cut-ins the
// same. Held-out taped calls: over echo 7 -> 1 / 0, but 2-4 more cut-ins over 150 ms per path (a
// caller's first hops that were echo-dominated no longer count). Every lag of the window after a
// delay is trusted too: the sweep's jumps 0 / 2, but +1.5-2 us per frame; 0.7 over the whole
// window: 0 / 0 and the probe 0 / 0, but twice the slowed cut-ins (docs/benchmarks-turns.md,
// round 25).
constexpr float kEchoVeto = 0.8f;

// The sum of a level over the bands (a restarted level's total starts from it).
float Total(const float* level) {
  float sum = 0;
  for (int b = 0; b < kBands; ++b) sum += level[b];
  return sum;
}

// How much of minDurationMs an evidence hop counts for (see kCreditBonus).
float EvidenceWeight(float excess) {
  const float over = std::log(excess / kEvidenceExcess) / std::log(kFullBonusExcess / kEvidenceExcess);
  return 1.f + kCreditBonus * std::min(1.f, std::max(0.f, over));
}

int16_t kSilence[4800] = {0};      // stands in for a missing reference (48 kHz x 100 ms)
}  // namespace

Status BargeInDetector::Init(int micRateHz, int refRateHz, int frameMs, const BargeInOptions& o,
                             const VadOptions& vo) {
  if (o.minDurationMs < 0 || o.minDurationMs > 10000 || o.gapMs < 0 || o.gapMs > 10000 ||
      o.maxEchoDelayMs < 0 || o.maxEchoDelayMs > 990 || !(o.threshold > 0 && o.threshold < 1) ||
      !(o.echoMarginDb >= 0 && o.echoMarginDb <= 30) || o.echoCancellerMs < 0 || o.echoCancellerMs > 64)
    return Status::kInvalidArgument;
  Status s = vad_.Init(micRateHz, frameMs, vo);
  if (!Ok(s)) return s;
  s = ref_.Init(refRateHz);
  if (!Ok(s)) return s;
  o_ = o;
  hops_ = frameMs / 10;
  cancelEcho_ = o.echoCancellerMs > 0;
  if (cancelEcho_) {
    s = canceller_.Init(micRateHz, refRateHz, o.maxEchoDelayMs, o.echoCancellerMs);
    if (!Ok(s)) return s;
  }
  s = wave_.Init(micRateHz, refRateHz, o.maxEchoDelayMs + 10);
  if (!Ok(s)) return s;
  hist_ = o.maxEchoDelayMs / 10 + 2;  // +2 hops: echo straddles hop edges
  caller_.LimitSpeechRise(kFloorSpeechRise);
  margin_ = std::pow(10.f, o.echoMarginDb / 10.f);
  Reset();
  return Status::kOk;
}

void BargeInDetector::Reset() {
  echoWaveLow_ = kWaveDtEchoStart;
  echoWaveTurn_ = 0;
  vad_.Reset();
  caller_.Reset();
  std::memset(ring_, 0, sizeof ring_);
  std::memset(shape_, 0, sizeof shape_);
  std::memset(corr_, 0, sizeof corr_);
  std::memset(audible_, 0, sizeof audible_);
  std::memset(refStep_, 0, sizeof refStep_);
  std::memset(env_, 0, sizeof env_);
  refLog_ = micLog_ = 0;
  for (float& v : burstLog_) v = kNoBurst;
  burstHead_ = 0;
  burstDipLog_ = 0;
  delayHops_ = -1;
  jumpLag_ = -10;
  jumpHops_ = 0;
  echoSeen_ = capTurn_ = false;
  for (float& g : erl_) g = kErlInit;
  for (float& g : dtGain_) g = kErlInit;
  for (float& g : peak_) g = 0;
  for (float& g : high_) g = 0;
  highHops_ = 0;
  peakTotal_ = highTotal_ = 0;
  highFar_.hops = peakFar_.hops = 0;
  peakFloor_ = 0;
  echoCorr_ = 0;
  dtHops_ = 0;
  dtHop_ = false;
  for (auto& lag : cap_)
    for (float& c : lag) c = kErlInit;
  head_ = 0;
  nowMs_ = runMs_ = quietMs_ = strongMs_ = 0;
  creditMs_ = runPeakLog_ = 0;
  runHops_ = runPeakAt_ = 0;
  micFell_ = false;
  markMs_ = lastMs_ = -1;
  refActiveHops_ = 0;
  trustedHops_ = matureHops_ = 0;
  firstLag_ = -1;
  std::memset(tested_, 0, sizeof tested_);
  std::memset(onsetRow_, 0, sizeof onsetRow_);
  std::memset(late_, 0, sizeof late_);
  pauseRows_ = kOnsetPauseRows;  // the first utterance follows silence
  activeHops_ = inactiveHops_ = 0;
  activityMasked_ = true;
  testedLags_ = 0;
  fired_ = false;
  echoAudibleHops_ = 0;
  if (cancelEcho_) canceller_.Reset();
  wave_.Reset();
  waveLag_ = -10;
  waveAge_ = 0;
  waveFollows_ = false;
}

bool BargeInDetector::WaveFollows(int lag) {
  if (std::abs(lag - waveLag_) > 1 || waveAge_ >= kWaveRecheckHops) {
    waveFollows_ = wave_.At(lag, kWaveMs) >= kWaveFollows || wave_.At(lag, kWaveRecentMs) >= kWaveRecentFollows;
    waveLag_ = lag;
    waveAge_ = 0;
  }
  return waveFollows_;
}

namespace {
// log2 to 1.3e-3 (0.004 dB; exponent bits + a cubic on the mantissa): the shapes only feed a correlation,
// and 32 std::log calls per hop were a fifth of the detector's time.
inline float FastLog2(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const float e = static_cast<float>(static_cast<int32_t>(bits >> 23) - 127);
  bits = (bits & 0x007FFFFFu) | 0x3F800000u;  // mantissa in [1, 2)
  float m;
  std::memcpy(&m, &bits, sizeof m);
  return e + (((0.15391353f * m - 1.02949275f) * m + 3.01073029f) * m - 2.13381654f);
}
}  // namespace

void BargeInDetector::Shape(const float* pow, float* out) {
  float mean = 0, norm = 0;
  // Band powers are positive (the analyzer adds a floor); the scale of the log cancels below.
  for (int b = 0; b < kBands; ++b) { out[b] = FastLog2(pow[b]); mean += out[b]; }
  mean *= 1.0f / kBands;
  for (int b = 0; b < kBands; ++b) { out[b] -= mean; norm += out[b] * out[b]; }
  const float inv = norm > 1e-6f ? 1.0f / std::sqrt(norm) : 0.f;
  for (int b = 0; b < kBands; ++b) out[b] *= inv;
}

VC_MULTIVERSION
float BargeInDetector::HopProbability(const float* mic, const float* judged, const float* micFloor,
                                      const float* refBands) {
  std::memcpy(ring_[head_], refBands, sizeof(float) * kBands);
  Shape(refBands, shape_[head_]);
  float micStep;  // the sign of the mic's level change since the last hop (0: under 0.3 dB)
  {
    float refE = 0, micE = 0;
    int loud = 0;
    for (int b = 0; b < kBands; ++b) {
      refE += refBands[b];
      micE += mic[b];
      loud += refBands[b] >= 30.f * micFloor[b] ? 1 : 0;
    }
    const float refLog = FastLog2(refE), micLog = FastLog2(micE);
    const float rise = refLog - refLog_;
    const int prevRow = head_ ? head_ - 1 : hist_ - 1;
    audible_[head_] = loud >= 4;
    onsetRow_[head_] = audible_[head_] && pauseRows_ >= kOnsetPauseRows;
    pauseRows_ = audible_[head_] ? 0 : pauseRows_ + 1;
    // Only level changes from audible to audible count: an onset out of silence coincides with
    // the caller's as often as with the echo's.
    refStep_[head_] = audible_[head_] && audible_[prevRow] && std::abs(rise) >= kEnvRise ? (rise > 0 ? 1.f : -1.f) : 0.f;
    refLog_ = refLog;
    const float dMic = micLog - micLog_;
    micStep = std::abs(dMic) < kEnvMicRise ? 0.f : dMic > 0 ? 1.f : -1.f;
    micFell_ = dMic < -kCreditFallLog2;
    micLog_ = micLog;
  }
  const int newest = head_;
  head_ = (head_ + 1) % hist_;
  // The window's loudest reference and, until an echo has shown up, the bound with each lag's
  // gain capped by what that lag has shown (see LearnCaps): a line without echo stops masking
  // the caller within a second. Caps only apply to the whole window (no delay trusted yet).
  const bool caps = !echoSeen_;
  float maxRef[kBands], capped[kBands];
  {
    // Lag k is ring row newest - k (mod hist_); 8 bands at a time.
    v8f mx0 = {0}, mx1 = {0}, cp0 = {0}, cp1 = {0};
    if (caps) {
      MarkLateLags(newest);
      const v8f e0 = LoadU8(erl_), e1 = LoadU8(erl_ + 8);
      for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1) {
        const v8f r0 = LoadU8(ring_[row]), r1 = LoadU8(ring_[row] + 8);
        mx0 = Max8(mx0, r0);
        mx1 = Max8(mx1, r1);
        const float use = late_[k] ? 0.f : 1.f;  // see kLateActiveHops
        cp0 = Max8(cp0, Min8(e0, LoadU8(cap_[k])) * r0 * use);
        cp1 = Max8(cp1, Min8(e1, LoadU8(cap_[k] + 8)) * r1 * use);
      }
    } else {
      for (int row = 0; row < hist_; ++row) {  // the maximum takes the rows in any order
        mx0 = Max8(mx0, LoadU8(ring_[row]));
        mx1 = Max8(mx1, LoadU8(ring_[row] + 8));
      }
    }
    std::memcpy(maxRef, &mx0, sizeof mx0);
    std::memcpy(maxRef + 8, &mx1, sizeof mx1);
    std::memcpy(capped, &cp0, sizeof cp0);
    std::memcpy(capped + 8, &cp1, sizeof cp1);
  }
  // Echo delay: the lag whose reference spectral shape best matches the mic,
  // learned only while the reference is loud and the mic hears something.
  float refAct = 0, micAct = 0;
  for (int b = 0; b < kBands; ++b) {
    refAct += maxRef[b] * erl_[b] > micFloor[b] ? 1.f : 0.f;
    micAct += mic[b] > 4.f * micFloor[b] ? 1.f : 0.f;
  }
  bool echoLike = false;  // the mic has the shape of the reference at the trusted delay
  shapeLag_ = -1;
  float corrNow = 0;      // best instantaneous shape match over the lags, above their mean
  if (refAct >= 4 && micAct >= 4) {
    float m[kBands], now[kMaxHist], nowMean = 0, top = -1.f;
    Shape(mic, m);
    const v8f m0 = LoadU8(m), m1 = LoadU8(m + 8);
    int heard = 0;
    float heardMean = 0;
    for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1) {
      now[k] = HSum8(m0 * LoadU8(shape_[row]) + m1 * LoadU8(shape_[row] + 8));
      nowMean += now[k];
      if (audible_[row]) { heardMean += now[k]; ++heard; }
    }
    nowMean /= hist_;
    heardMean /= std::max(1, heard);
    // For the delay, a lag whose reference was silent cannot hold the echo: it counts as the
    // mean of the audible ones. Its flat shape matches nothing, and with such lags in the mean any
    // speech (the caller's too: synthetic voices match any speech lag by 0.5-0.8) stood out at
    // some speech lag in the first maxEchoDelayMs of an utterance. (corrNow keeps the mean over
    // all lags: the double-talk test needs it to take an echo's onset for echo.)
    // env_ learns only on hops where the lag's reference moved (step +-1; 0 leaves it).
    for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1) {
      corr_[k] += 0.03f * ((audible_[row] ? now[k] : heardMean) - corr_[k]);
      top = std::max(top, now[k]);
      const float step = refStep_[row];
      env_[k] += kEnvRate * step * step * (step * micStep - env_[k]);
    }
    // Echo-likeness in units of its threshold: any lag until a delay is trusted (the best of
    // many lags matches speech by chance, so the bar is higher), then only the lags around it.
    corrNow = (top - nowMean) / kDtCorr0;
    int best = 0;
    float mean = 0;
    for (int k = 0; k < hist_; ++k) { mean += corr_[k]; if (corr_[k] > corr_[best]) best = k; }
    mean /= hist_;
    // Once a delay was trusted (caps off), a hop where no lag stands out keeps it: with silent
    // lags no longer pulling the mean down that is most hops, and the bound fell back to the
    // window's loudest reference times an erl that a crowd or music had taught, masking callers
    // for the rest of the call (sweep, late in the call, 16 kHz tuning / held-out misses 8 / 13 -> 3 / 9).
    const int kept = delayHops_;
    delayHops_ = corr_[best] > 0.25f && corr_[best] - mean > 0.1f ? best : echoSeen_ ? delayHops_ : -1;
    // A trusted delay moves more than a hop only to a lag where the mic's waveform follows the
    // reference, as a jump must (kWaveFollows): at the start of an utterance, before its echo
    // arrives, the true lag still holds the silence before it and sinks to the mean, while a
    // caller talking over the first hops matches their shapes; the bound then followed the
    // agent's fresh speech and masked the caller (live call "echo 310 ms -9 dB": 681 ms).
    if (echoSeen_ && kept >= 0 && std::abs(delayHops_ - kept) > 1 && !WaveFollows(delayHops_)) delayHops_ = kept;
    if (delayHops_ >= 0 && !echoSeen_) {
      // The first delay trusted turns the per-lag caps off for the call and blocks the
      // double-talk test: the mic's level must also have followed the reference's there.
      float env = -1.f;
      for (int k = std::max(0, best - 1); k <= std::min(hist_ - 1, best + 1); ++k) env = std::max(env, env_[k]);
      if (env < kEnvTrust) delayHops_ = -1;
    }
    if (delayHops_ >= 0) {
      float atDelay = 0;
      for (int k = std::max(0, delayHops_ - 1); k <= std::min(hist_ - 1, delayHops_ + 1); ++k) atDelay = std::max(atDelay, now[k]);
      echoLike = atDelay - nowMean > kEchoLike;
      corrNow = (atDelay - nowMean) / kDtCorr;
      // The echo moved (a jitter buffer that ran dry plays the rest later): the mic has the
      // reference's shape at another lag, hop after hop. The smoothed correlation takes ~1 s
      // to follow, and meanwhile the echo at the new lag counted as the caller.
      int kNow = 0;
      for (int k = 1; k < hist_; ++k) if (now[k] > now[kNow]) kNow = k;
      shapeLag_ = kNow;
      if (!echoLike && now[kNow] - nowMean > kEchoLike && std::abs(kNow - delayHops_) > 1) {
        jumpHops_ = std::abs(kNow - jumpLag_) <= 1 ? jumpHops_ + 1 : 1;
        jumpLag_ = kNow;
        if (jumpHops_ >= 2 && !WaveFollows(kNow)) jumpHops_ = 1;
        if (jumpHops_ >= kJumpHops) {
          corr_[kNow] = std::max(corr_[kNow], corr_[delayHops_] + 0.05f);
          delayHops_ = kNow;  // not echoLike: the caller may be what matched, the gain must not creep
          jumpHops_ = 0;
        }
      } else {
        jumpHops_ = 0;
      }
    }
  }
  // With a trusted delay the echo bound uses the reference around that lag
  // (+-1 hop for sub-hop delays); otherwise the whole window's maximum.
  const int first = delayHops_ >= 0 ? std::max(0, delayHops_ - 1) : 0;
  const int last = delayHops_ >= 0 ? std::min(hist_ - 1, delayHops_ + 1) : hist_ - 1;
  if (delayHops_ >= 0 && !echoSeen_) firstLag_ = delayHops_;
  if (delayHops_ >= 0) echoSeen_ = true;
  if (echoSeen_ && trustedHops_ < kErlFirstHops) ++trustedHops_;
  if (echoSeen_ && refActiveHops_ > 0 && matureHops_ < kErlMatureHops) ++matureHops_;
  float sel[kBands] = {0}, extra[kBands];
  if (delayHops_ < 0) {
    std::memcpy(sel, maxRef, sizeof sel);
  } else {
    for (int k = first; k <= last; ++k) {
      const float* r = ring_[(newest - k + hist_) % hist_];
      for (int b = 0; b < kBands; ++b) sel[b] = std::max(sel[b], r[b]);
    }
    // A lag the echo may have moved to (seen, not yet trusted) bounds it too meanwhile.
    if (jumpHops_ >= 2) {
      for (int k = std::max(0, jumpLag_ - 1); k <= std::min(hist_ - 1, jumpLag_ + 1); ++k) {
        const float* r = ring_[(newest - k + hist_) % hist_];
        for (int b = 0; b < kBands; ++b) sel[b] = std::max(sel[b], r[b]);
      }
    }
  }
  for (int b = 0; b < kBands; ++b) extra[b] = margin_ * (echoSeen_ ? erl_[b] * sel[b] : capped[b]);
  refActiveHops_ = refAct >= 2 ? 30 : std::max(0, refActiveHops_ - 1);
  if (cancelEcho_) {
    // The canceller runs while an echo the mic can hear may be on the line (kAecAudible).
    float echo = 0, floor = 0;
    for (int b = 0; b < kBands; ++b) { echo += erl_[b] * sel[b]; floor += micFloor[b]; }
    echoAudibleHops_ = echoSeen_ && echo >= kAecAudible * floor ? 30 : std::max(0, echoAudibleHops_ - 1);
  }
  // The caller is judged on what the canceller left when it has earned it (EchoCancelStage::
  // Credited), against the echo bound times what it is known to leave of the echo; otherwise on
  // the mic as heard.
  const bool cancelled = judged != mic;
  const bool credited = cancelled && jumpHops_ < 2 && canceller_.Credited(mic, judged, erl_, sel);
  const float* heard = credited ? judged : mic;
  float bound[kBands];
  for (int b = 0; b < kBands; ++b) bound[b] = credited ? extra[b] * canceller_.credit()[b] : extra[b];
  {
    // Before Score updates them: what this hop's mic is measured against.
    const float* fl = caller_.floor();
    const float* bg = caller_.background();
    float num = 0, noise = 0, den = 0;
    for (int b = 0; b < kBands; ++b) {
      num += heard[b];
      noise += std::max(fl[b], bg[b]);
      den += std::max(fl[b], bg[b]) + bound[b];
    }
    excess_ = num / std::max(den, 1e-6f);
    const float lineBar = LoudLineBar();
    hopHeard_ = num;
    hopNoise_ = noise + lineBar;
    hopBound_ = den - noise;
    float pk = lineBar;
    for (int b = 0; b < kBands; ++b) pk += bound[b];
    overPeak_ = num >= pk;
    FollowActivity(num >= kActiveOverNoise * noise && num >= lineBar);
  }
  const float p = caller_.Score(heard, bound);
  // A muted microphone's zeros (the scorer holds its floor over them: SpeechScorer::
  // HoldOverZeros) are neither the caller nor the echo: no evidence, and the echo gain does not
  // learn that the path is gone (after a mute the echo came back unbounded and passed for the
  // caller). The line's levels and the per-lag caps follow them down as before. Other zeros (a
  // stream's first frames, the gaps of a line with silence suppression or of a digital caller)
  // count as before: there the echo gain learning that no echo is on the line lets the first
  // words through at once (a digital caller after 1.5 s of zeros: 100 ms, 180 ms without).
  if (caller_.holding()) {
    dtHop_ = false;
    if (!fired_ && refActiveHops_ == 0 && runMs_ < kHighRunMs) LearnHigh(mic, sel);
    RestartLevels(mic, sel);
    if (!echoSeen_ && (capTurn_ = !capTurn_)) LearnCaps(mic, micFloor, maxRef, newest, p < 0.3f);
    return p;
  }
  if (cancelled) canceller_.LearnCredit(p < 0.3f, mic, judged, sel, micFloor);
  echoCorr_ += 0.4f * (corrNow - echoCorr_);
  dtHop_ = DoubleTalk(mic, micFloor, sel, echoCorr_, p < 0.3f);
  if (!fired_ && refActiveHops_ == 0 && runMs_ < kHighRunMs) LearnHigh(mic, sel);
  RestartLevels(mic, sel);
  // Once per 20 ms is plenty for the caps, and halves their cost. They may fall while the
  // caller speaks too (mic/ref bounds a lag's gain whoever else is in the mic), not rise.
  if (!echoSeen_ && (capTurn_ = !capTurn_)) LearnCaps(mic, micFloor, maxRef, newest, p < 0.3f);
  if (p < 0.3f && testedLags_ < hist_) {
    for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1)
      if (audible_[row] && !tested_[k]) { tested_[k] = true; ++testedLags_; }
  }
  if (p < 0.3f) {
    // Learn the echo return loss while the caller is quiet: rise quickly to
    // the observed mic/ref ratio, decay when the echo is weaker. The echo is what the mic
    // carries over the line's 90th percentile (high_), not over its floor: a 10 ms hop of white
    // noise in a narrow band often sits 2-3 dB over its floor, and those hops taught the gain
    // the noise, bounding a line without echo 7-12 dB over the noise (carrier callers 6 dB over
    // white noise missed). Replayed calls, tuning half, misses web / carrier 4 / 2 -> 3 / 1,
    // p95 760 / 760 -> 340 / 340 ms; the sweep's false interruptions 6 / 9 -> 6 / 10.
    int echoLikeWave = -1;  // kErlWaveRise: asked once per hop, when a band would rise that far
    for (int b = 0; b < kBands; ++b) {
      if (sel[b] < 30.f * micFloor[b]) continue;  // reference too weak here
      float r = std::max(0.f, mic[b] - std::max(micFloor[b], high_[b])) / sel[b];
      float& g = erl_[b];
      if (r > kErlWaveRise * g && delayHops_ >= 0 && delayHops_ + kWaveDtSpanHops + 1 < hist_) {
        if (echoLikeWave < 0) echoLikeWave = EchoWaveMatch() >= kWaveFollows ? 1 : 0;
        if (!echoLikeWave) r = g;
      }
      const float up = g + 0.2f * (r - g);
      g = r > g ? (p >= kErlRiseQuiet ? g : matureHops_ >= kErlMatureHops ? std::min(up, g * kErlMatureRise) : up)
                : g * (r < kErlFarBelow * g ? kErlFastDecay : 0.99f);
      g = std::min(kErlMax, std::max(kErlMin, g));
      if (!echoSeen_ && testedLags_ < hist_) g = std::max(g, kErlInit);  // see kErlInit
    }
  } else if (echoLike) {
    // Energy beyond the bound with the reference's shape at the delay: the echo path got
    // louder. Creep up (+0.09 dB per hop) rather than jump, as the caller may be in it too
    // (old: only hops under the bound taught it, and a path 20 dB louder was never learned).
    bool learning = trustedHops_ < kErlFirstHops && echoCorr_ >= kErlFirstCorr && std::abs(delayHops_ - firstLag_) <= 1;
    if (learning) {
      float env = -1.f;
      for (int k = std::max(0, delayHops_ - 1); k <= std::min(hist_ - 1, delayHops_ + 1); ++k) env = std::max(env, env_[k]);
      learning = env >= kEnvTrust;
    }
    for (int b = 0; b < kBands; ++b) {
      if (sel[b] < 30.f * micFloor[b]) continue;
      const float r = (mic[b] - micFloor[b]) / sel[b];
      if (r <= erl_[b]) continue;
      erl_[b] = std::min(kErlMax, learning ? erl_[b] + 0.2f * std::max(0.f, kErlFirstShare * r - erl_[b])
                                           : std::min(r, erl_[b] * kErlCreep));
    }
  }
  return p;
}

// Per-lag caps on the echo gain, learned while the caller is quiet. A cap decays fast
// (-3 dB per 20 ms) where its lag's reference was loud and the mic stayed well under its
// bound: a lag that carries no echo stops masking the caller within a few hundred ms, while
// the shared gain falls 0.3 dB per hop at best. A lag
// is only learned once its own reference was loud, so an echo arriving late still meets the
// initial gain. A cap rises slowly (+0.17 dB per 20 ms) towards the least gain that explains the
// mic whatever the delay (its ratio against the loudest reference): that energy is usually a
// caller, who must not teach the bound to hide them. It rose 0.36 of the way per 20 ms while
// the mic was under the bound, so a caller masked early in a call taught every lag their own
// level (the sweep's fresh calls, with kLateActiveHops, 16 / 8 kHz p95 380 / 380 ms -> 300 / 300).
VC_MULTIVERSION
void BargeInDetector::LearnCaps(const float* mic, const float* micFloor, const float* maxRef,
                                int newest, bool quiet) {
  // Per band first; the lag loop below is branch-free (masks as floats) so it vectorizes.
  float heard[kBands], least[kBands], loud[kBands], learn[kBands];
  for (int b = 0; b < kBands; ++b) {
    loud[b] = 30.f * micFloor[b];
    learn[b] = maxRef[b] >= loud[b] ? 1.f : 0.f;  // else the reference is too weak here
    heard[b] = std::max(0.f, mic[b] - std::max(micFloor[b], high_[b]));  // over the line's spread, as erl_
    least[b] = learn[b] != 0.f ? heard[b] / maxRef[b] : 0.f;
  }
  for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1) {
    const float* r = ring_[row];
    float* c = cap_[k];
    for (int b = 0; b < kBands; ++b) {
      const float cv = c[b];
      const float up = std::min(least[b], cv * kErlCreep * kErlCreep);
      const bool decay = (r[b] >= loud[b]) & (heard[b] < 0.5f * cv * r[b]);
      const float down = decay ? cv * kCapDecay : cv;
      const float v = std::min(kErlMax, std::max(kErlMin, least[b] > cv ? up : down));
      c[b] = learn[b] != 0.f && (quiet || v < cv) ? v : cv;
    }
  }
}

// See kLateActiveHops.
void BargeInDetector::MarkLateLags(int newest) {
  if (inactiveHops_ >= kLateClearHops) std::memset(late_, 0, sizeof late_);
  const bool busy = activeHops_ >= kLateActiveHops && activityMasked_;
  for (int k = 0, row = newest; k < hist_; ++k, row = row ? row - 1 : hist_ - 1)
    if (onsetRow_[row]) late_[k] = busy;
}

void BargeInDetector::FollowActivity(bool active) {
  activeHops_ = active ? activeHops_ + 1 : 0;
  inactiveHops_ = active ? 0 : inactiveHops_ + 1;
  if (activeHops_ == 1) activityMasked_ = true;
  // Over the bound from its first hops while the window holds the agent's speech: a loud echo
  // may be what began (with no speech in the window, nothing on the line can be its echo).
  if (active && activeHops_ <= kMaskedOnsetHops && excess_ >= kEvidenceExcess && pauseRows_ < hist_) activityMasked_ = false;
}

void BargeInDetector::LearnHigh(const float* mic, const float* sel) {
  const bool fast = highHops_ < kHighFastHops;  // see kHighFastHops
  if (fast) ++highHops_;
  const float up = fast ? kHighUp : kHighSlowUp, down = fast ? kHighDown : kHighSlowDown;
  float total = 0;
  for (int b = 0; b < kBands; ++b) {
    const float x = std::max(0.f, mic[b] - dtGain_[b] * sel[b]);
    float& q = high_[b];
    q = q == 0.f ? x : x > q ? q * up : q * down;
    total += x;
  }
  highTotal_ = highTotal_ == 0.f ? total : total > highTotal_ ? highTotal_ * up : highTotal_ * down;
}

// What evidence must clear beyond the echo bound: the line's peaks and kHighOver times its 90th
// percentile, per band, summed. Each level's bands keep their shape but are scaled down to that
// level of the line's total: per band, a steady noise's 10 ms hops spread several dB over their
// mean, and summing the bands' own 90th percentiles and peaks asked a caller for more than the
// line ever shows as a whole (on white noise they are independent; music's beats and a crowd's
// loud moments lift all bands together, and there the two sums are close). Taped live calls
// (bench/turns/tape-eval.ts), tuning half, web / carrier: cut-ins over 150 ms 14 / 24 -> 13 / 22,
// over 400 ms 4 / 5 -> 3 / 4, misses 1 / 1 -> 1 / 0, false interruptions the same (6 / 2).
float BargeInDetector::LoudLineBar() const {
  float peaks = 0, highs = 0;
  for (int b = 0; b < kBands; ++b) { peaks += peak_[b]; highs += high_[b]; }
  const float peakScale = peaks > 0 ? std::min(1.f, peakTotal_ / peaks) : 1.f;
  const float highScale = highs > 0 ? kHighOver * std::min(1.f, highTotal_ / highs) : kHighOver;
  float bar = 0;
  for (int b = 0; b < kBands; ++b) bar += std::max(peakScale * peak_[b], highScale * high_[b]);
  return bar;
}

bool BargeInDetector::RestartLevel(const float* x, float* level, FarRun& run) {
  float line = 0, bar = 0;
  for (int b = 0; b < kBands; ++b) { line += x[b]; bar += level[b]; }
  if (kLevelFar * line >= bar) {
    run.hops = 0;
    return false;
  }
  for (int b = 0; b < kBands; ++b) run.max[b] = run.hops == 0 ? x[b] : std::max(run.max[b], x[b]);
  if (++run.hops < kLevelFarHops) return false;
  std::memcpy(level, run.max, sizeof run.max);
  run.hops = 0;
  return true;
}

void BargeInDetector::RestartLevels(const float* mic, const float* sel) {
  float x[kBands];
  for (int b = 0; b < kBands; ++b) x[b] = std::max(0.f, mic[b] - dtGain_[b] * sel[b]);  // the line beyond the echo
  if (RestartLevel(x, high_, highFar_)) highTotal_ = Total(high_);
  // The peaks also learn the echo's residual while the agent speaks, and carried it on, masking
  // callers late in the call; they restart in the agent's pauses (replayed calls, held-out, misses
  // web 11 -> 5, carrier 13 -> 9; sweeps, over echo paths that jump: false interruptions 9 -> 13 /
  // 10 -> 15). While the agent speaks they restart only if learned over a floor that has since
  // fallen 15 dB (restarting them then too: over echo, caller silent, 8 -> 19).
  if (refActiveHops_ == 0 || kLevelFar * FloorSum() < peakFloor_) {
    if (RestartLevel(x, peak_, peakFar_)) peakTotal_ = Total(peak_);
  } else {
    peakFar_.hops = 0;
  }
}

float BargeInDetector::FloorSum() const {
  const float* fl = caller_.floor();
  float sum = 0;
  for (int b = 0; b < kBands; ++b) sum += fl[b];
  return sum;
}

// Whether this hop is the tail of a burst (see kBurstExcess): 12 dB under the loudest hop of the
// last 100 ms that was far over the bound.
bool BargeInDetector::BurstTail() {
  const bool burst = excess_ >= kBurstExcess;
  const bool onset = micLog_ - burstDipLog_ >= kBurstRiseLog2;
  if (onset)
    for (float& v : burstLog_) v = kNoBurst;
  burstLog_[burstHead_] = burst ? micLog_ : kNoBurst;
  burstHead_ = (burstHead_ + 1) % kBurstHops;
  burstDipLog_ = burst || onset ? micLog_ : std::min(burstDipLog_, micLog_);
  float top = kNoBurst;
  for (float v : burstLog_) top = std::max(top, v);
  return micLog_ < top - kBurstFallLog2;
}

// Per-band residual double-talk test. dtGain_ follows mic/ref per band at the tracked delay (the
// window's loudest reference before one is trusted) while the caller is judged silent: down at
// once, up at once only when the mic has the reference's shape (echo survives clipping, mu-law and
// band limits with its shape; a caller over it does not), slowly otherwise.
bool BargeInDetector::DoubleTalk(const float* mic, const float* micFloor, const float* sel,
                                 float echoCorr, bool quiet) {
  const float* fl = caller_.floor();
  const float* bg = caller_.background();
  int over = 0;
  for (int b = 0; b < kBands; ++b) {
    const float noise = std::max(std::max(fl[b], bg[b]), std::max(peak_[b], high_[b]));
    const float pred = dtGain_[b] * sel[b];
    over += mic[b] - pred - noise >= kDtOver * std::max(noise, pred) ? 1 : 0;
  }
  const bool hit = over >= kDtBands && echoCorr < 1.f;
  dtHops_ = hit ? dtHops_ + 1 : 0;
  if (quiet && dtHops_ == 0 && over < kPeakOver) {
    // Only hops with no band over teach the peaks and the gains: a masked caller's onset trips
    // bands first. The peaks: what the line carries beyond the echo (music notes, a crowd's loud
    // moments), rising 0.3 of the way per hop, falling 0.9 dB per second.
    const float rise = caller_.hops() < kPeakWarmUpHops ? 0.f : kPeakRise;  // see kPeakWarmUpHops
    bool rose = false;
    float total = 0;
    for (int b = 0; b < kBands; ++b) {
      const float x = std::max(0.f, mic[b] - dtGain_[b] * sel[b]);
      rose = rose || (rise > 0.f && x > peak_[b]);
      peak_[b] = x > peak_[b] ? peak_[b] + rise * (x - peak_[b]) : peak_[b] * kPeakDecay;
      total += x;
    }
    peakTotal_ = total > peakTotal_ ? peakTotal_ + rise * (total - peakTotal_) : peakTotal_ * kPeakDecay;
    if (rose) peakFloor_ = FloorSum();
    const float mu = echoCorr >= 1.f ? kDtMu : kDtMuSlow;
    for (int b = 0; b < kBands; ++b) {
      if (sel[b] < 30.f * micFloor[b]) continue;
      const float r = std::max(0.f, mic[b] - micFloor[b]) / sel[b];
      float& g = dtGain_[b];
      g += (r < g ? kDtMu : mu) * (r - g);
      g = std::min(kErlMax, std::max(kErlMin, g));
    }
  }
  return dtHops_ >= kDtHops;
}

// A hop under the echo bound whose waveform does not follow the reference (see kWaveDtFloor);
// waveClear_ says how far under the bar its best match was.
bool BargeInDetector::WaveformDoubleTalk(float p) {
  if (!echoSeen_) return WindowDoubleTalk(p);
  // A delay at the window's far edge may be an echo beyond it.
  if (delayHops_ < 0 || delayHops_ + kWaveDtSpanHops + 1 >= hist_ || jumpHops_ > 0) return false;
  if (hopHeard_ < kWaveDtOver * hopNoise_) return false;
  if (p < 0.2f && hopBound_ >= hopHeard_) {
    // The echo alone, caller quiet: how closely it follows the reference on this line.
    if (++echoWaveTurn_ % kWaveDtLearnEvery == 0) {
      const float c = wave_.At(delayHops_, kWaveDtMs);
      echoWaveLow_ += kWaveDtRate * (c < echoWaveLow_ ? kWaveDtQuantile - 1.f : kWaveDtQuantile);
    }
    return false;
  }
  if (p < kWaveDtQuiet || hopBound_ < kWaveDtEcho * hopHeard_) return false;
  const float bar = std::min(kWaveDtCeil, std::max(kWaveDtFloor, kWaveDtShare * echoWaveLow_));
  float top = DelayWaveMatch();
  if (top >= bar) return false;
  const bool elsewhere = shapeLag_ >= 0 && std::abs(shapeLag_ - delayHops_) > kWaveDtSpanHops + 1;
  if (elsewhere) top = std::max(top, wave_.At(shapeLag_, kWaveDtMs));
  waveClear_ = top / bar;
  return top < bar;
}

// How closely the mic's last 40 ms follow the reference within two hops of the trusted delay.
float BargeInDetector::DelayWaveMatch() {
  float top = 0;
  for (int k = delayHops_ - kWaveDtSpanHops; k <= delayHops_ + kWaveDtSpanHops; k += 2)  // At(k) spans k +- 1 hop
    if (k >= 0 && k < hist_) top = std::max(top, wave_.At(k, kWaveDtMs));
  return top;
}

// The same, or at the lag whose band shape the mic matches now if that is elsewhere (an echo
// that jumped).
float BargeInDetector::EchoWaveMatch() {
  const float top = DelayWaveMatch();
  const bool elsewhere = shapeLag_ >= 0 && std::abs(shapeLag_ - delayHops_) > kWaveDtSpanHops + 1;
  return elsewhere ? std::max(top, wave_.At(shapeLag_, kWaveDtMs)) : top;
}

// Whether the mic's waveform follows the reference where the echo may be (see kEchoVeto): with a
// trusted delay, within 40 ms of it (drift) and at the lag whose band shape the mic matches now
// (a jump); before, at any lag of the window.
bool BargeInDetector::WaveformEcho() {
  if (delayHops_ < 0) {
    for (int k = kWaveDtSpanHops; k < hist_ + kWaveDtSpanHops; k += 2 * kWaveDtSpanHops)  // At(k) spans k +- 1 hop
      if (wave_.At(k, kWaveDtMs) >= kEchoVeto) return true;
    return false;
  }
  for (int k : {delayHops_, delayHops_ - 3, delayHops_ + 3})
    if (k >= 0 && k < hist_ && wave_.At(k, kWaveDtMs) >= kEchoVeto) return true;
  return shapeLag_ >= 0 && std::abs(shapeLag_ - delayHops_) > 4 && wave_.At(shapeLag_, kWaveDtMs) >= kEchoVeto;
}

// The waveform test before a delay is trusted: every lag of the window (see kWaveDtBar0 and
// kWaveDtBarMasked).
bool BargeInDetector::WindowDoubleTalk(float p) {
  if (hopHeard_ < kWaveDtOver * hopNoise_ || hopBound_ < kWaveDtEcho * hopHeard_) return false;
  const bool masked = p < kWaveDtQuiet;
  const float bar = masked ? kWaveDtBarMasked : kWaveDtBar0;
  float top = 0;
  for (int k = kWaveDtSpanHops; k < hist_ + kWaveDtSpanHops; k += 2 * kWaveDtSpanHops) {  // At(k) spans k +- 1 hop
    top = std::max(top, wave_.At(k, kWaveDtMs));
    if (top >= bar) return false;  // the echo, most likely: no need to look further
  }
  waveClear_ = masked ? 1.f : top / kWaveDtBar0;  // masked hops never count as strong ones
  return true;
}

void BargeInDetector::ProcessFrame(const int16_t* mic, const int16_t* ref, VadResult* vad,
                                   BargeInResult* r) {
  vad_.ProcessFrame(mic, vad);
  const int refHop = ref_.hopSamples();
  float sum = 0;
  int evidence = 0, strong = 0;
  float credit = 0;
  bool dt = false;
  const int micHop = static_cast<int>(frameSamples()) / hops_;
  for (int h = 0; h < hops_; ++h) {
    float rb[kBands];
    const int16_t* refNow = ref ? ref + h * refHop : nullptr;
    ref_.ProcessHop(refNow ? refNow : kSilence, rb);
    wave_.Push(mic + h * micHop, refNow);
    ++waveAge_;
    const float* bands = vad_.hopBands(h);
    // Once the band tracker trusts a delay, the echo cancelled there (see EchoCancelStage).
    float left[kBands];
    const bool cancelled = cancelEcho_ && canceller_.Hop(mic + h * micHop, refNow, bands, delayHops_, refActiveHops_ > 0,
                                                          echoAudibleHops_ > 0, fired_, left);
    const float* heard = cancelled ? left : bands;
    // The echo-aware scorer's floor, once settled: it does not rise under the echo bound, where
    // the plain VAD's floor climbed onto a caller masked by it (+25 dB in 300 ms).
    const float hp = HopProbability(bands, heard, caller_.hops() > 20 ? caller_.floor() : vad_.noiseFloor(), rb);
    if (cancelEcho_) canceller_.Judged(hp < 0.3f);
    sum += hp;
    const bool tail = BurstTail();
    const bool heardOver = caller_.rawLlr() >= kEvidenceLlr && overPeak_;
    const bool energy = heardOver && excess_ >= kEvidenceExcess;
    const bool waveHop = !dtHop_ && !energy && WaveformDoubleTalk(hp);
    const bool doubleTalk = dtHop_ || waveHop;
    const bool echo = !tail && !fired_ && (dtHop_ || energy) && refActiveHops_ > 0 && WaveformEcho();
    if (!tail && !echo && (doubleTalk || energy)) {
      ++evidence;
      if (heardOver && excess_ >= kStrongExcess) ++strong;
      if (runMs_ == 0 && evidence == 1) {
        runPeakLog_ = micLog_;
        runHops_ = runPeakAt_ = 0;
      } else {
        ++runHops_;
        if (micLog_ > runPeakLog_) {
          runPeakLog_ = micLog_;
          runPeakAt_ = runHops_;
        }
      }
      const bool ramped = runPeakAt_ >= kCreditRampHops;
      credit += waveHop ? (waveClear_ < kWaveDtClear ? 1.f + kCreditBonus : 1.f)
                : heardOver && (!micFell_ || ramped) && (echoSeen_ || echoCorr_ < 1.f) ? EvidenceWeight(excess_) : 1.f;
    }
    dt = dt || doubleTalk;
  }
  const int frameMs = hops_ * 10;
  const float p = sum / hops_;
  const int evidenceMs = evidence * 10;
  const int64_t frameStart = nowMs_;
  nowMs_ += frameMs;
  r->events = 0;
  r->callerProbability = p;
  r->callerSpeech = p >= o_.threshold || dt;
  r->agentActive = refActiveHops_ > 0;
  // Duration counts only hops that are caller speech on their own evidence,
  // so the smoothed tail of a short loud burst cannot reach minDurationMs.
  if (r->callerSpeech && evidenceMs > 0) {
    if (runMs_ == 0) {
      markMs_ = frameStart;
      strongMs_ = 0;
      creditMs_ = 0;
    }
    runMs_ += evidenceMs;
    creditMs_ += credit * 10;
    strongMs_ += strong * 10;
    quietMs_ = 0;
    if (!fired_ && (creditMs_ + kCreditSlackMs >= o_.minDurationMs || strongMs_ * 100 >= int64_t{kStrongPercent} * o_.minDurationMs)) {
      fired_ = true;
      lastMs_ = markMs_;
      r->events |= kBargeInInterruption;
    }
  } else if (!r->callerSpeech && runMs_ > 0) {
    quietMs_ += frameMs;
    if (quietMs_ >= o_.gapMs) {  // the spurt is over: re-arm
      if (fired_) r->events |= kBargeInEnd;
      runMs_ = quietMs_ = 0;
      fired_ = false;
    }
  }
  r->interruptionMs = lastMs_;
}

}  // namespace vc

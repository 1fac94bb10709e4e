{
  "targets": [
    {
      "target_name": "vc_native",
      "sources": [
        "native/src/core/status.cc",
        "native/src/core/framer.cc",
        "native/src/core/g711.cc",
        "native/src/core/resampler.cc",
        "native/src/core/dtmf.cc",
        "native/src/core/ambience.cc",
        "native/src/core/mixer.cc",
        "native/src/core/vad.cc",
        "native/src/core/echo_canceller.cc",
        "native/src/core/echo_cancel_stage.cc",
        "native/src/core/waveform_lag.cc",
        "native/src/core/bargein.cc",
        "native/src/core/bargein_bursts.cc",
        "native/src/core/bargein_caps.cc",
        "native/src/core/bargein_double_talk.cc",
        "native/src/core/bargein_line_levels.cc",
        "native/src/core/channel.cc",
        "native/src/core/echo_chain.cc",
        "native/src/core/fft.cc",
        "native/src/core/beep_detector.cc",
        "native/src/binding/addon.cc",
        "native/src/binding/framer_wrap.cc",
        "native/src/binding/resampler_wrap.cc",
        "native/src/binding/vad_wrap.cc",
        "native/src/binding/channel_wrap.cc",
        "native/src/binding/echo_chain_wrap.cc",
        "native/src/binding/dtmf_wrap.cc",
        "native/src/binding/ambience_wrap.cc",
        "native/src/binding/beep_detector_wrap.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "native/include"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      # Warnings are errors (-Wunused-parameter undoes node-gyp's -Wno-). node-addon-api is a
      # system include: its own headers are not -Wshadow clean.
      "cflags": ["-O3", "-fno-trapping-math", "-Wno-psabi", "-Wall", "-Wextra", "-Wshadow", "-Wunused-parameter", "-Werror",
                 "-isystem", "<!(node -p \"require('path').resolve(require('node-addon-api').include_dir)\")"],
      "cflags_cc": ["-std=c++17", "-O3", "-fno-trapping-math", "-fno-exceptions", "-Wno-psabi"],
      "cflags_cc!": ["-fno-rtti", "-std=gnu++17"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "NO",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "OTHER_CPLUSPLUSFLAGS": ["-O3"]
      }
    }
  ]
}

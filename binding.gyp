{
  "targets": [
    {
      "target_name": "vc_native",
      "sources": ["native/src/binding/addon.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "native/include"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O3", "-fno-exceptions"],
      "cflags_cc!": ["-fno-rtti"]
    }
  ]
}

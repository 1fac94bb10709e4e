#include <napi.h>

static Napi::Object Init(Napi::Env env, Napi::Object exports) { return exports; }

NODE_API_MODULE(vc_native, Init)

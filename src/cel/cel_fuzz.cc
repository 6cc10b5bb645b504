// libFuzzer target: compiles arbitrary input as a selector and, when it compiles, evaluates it
// against a fixed device. Must never crash, hang or recurse without bound: the parser limits
// nesting (kMaxRecursionDepth) and AST height (kMaxAstHeight), and evaluation is bounded by the
// runtime cost limit.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/resource/types.h"
#include "cel/cel.h"

namespace {

const allot::api::Device& FuzzDevice() {
  static const allot::api::Device* device = [] {
    auto* d = new allot::api::Device();
    d->name = "gpu-0";
    d->attributes["model"].stringValue = "LATEST-GPU-MODEL";
    d->attributes["index"].intValue = 0;
    d->attributes["shared"].boolValue = true;
    d->attributes["driverVersion"].versionValue = "1.0.0";
    d->attributes["other.example.com/family"].stringValue = "ampere";
    d->attributes["broken"].versionValue = "not-a-version";
    d->capacity["memory"].value = *allot::api::Quantity::Parse("80Gi");
    return d;
  }();
  return *device;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view expr(reinterpret_cast<const char*>(data), size);
  auto program = allot::cel::CompileDeviceSelector(expr);
  if (!program.ok()) return 0;
  (void)(*program)->estimated_cost();
  (void)(*program)->Matches("gpu.example.com", FuzzDevice());
  return 0;
}

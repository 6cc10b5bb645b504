// Helpers for the cel tests: device builders and one-call evaluation.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "api/resource/types.h"
#include "cel/cel.h"
#include "cel/checker.h"
#include "cel/interpreter.h"
#include "cel/parser.h"
#include "common/status.h"

namespace allot::cel::testing {

inline api::DeviceAttribute IntAttr(int64_t v) {
  api::DeviceAttribute a;
  a.intValue = v;
  return a;
}
inline api::DeviceAttribute BoolAttr(bool v) {
  api::DeviceAttribute a;
  a.boolValue = v;
  return a;
}
inline api::DeviceAttribute StringAttr(std::string v) {
  api::DeviceAttribute a;
  a.stringValue = std::move(v);
  return a;
}
inline api::DeviceAttribute VersionAttr(std::string v) {
  api::DeviceAttribute a;
  a.versionValue = std::move(v);
  return a;
}
inline api::DeviceCapacity Cap(std::string_view q) {
  api::DeviceCapacity c;
  c.value = *api::Quantity::Parse(q);
  return c;
}

// The device every generic expression test runs against (driver "dra.example.com").
inline api::Device TestDevice() {
  api::Device d;
  d.name = "dev-0";
  d.attributes["model"] = StringAttr("LATEST-GPU-MODEL");
  d.attributes["index"] = IntAttr(3);
  d.attributes["shared"] = BoolAttr(true);
  d.attributes["driverVersion"] = VersionAttr("1.2.3");
  d.attributes["other.example.com/family"] = StringAttr("ampere");
  d.capacity["memory"] = Cap("80Gi");
  d.capacity["other.example.com/slots"] = Cap("4");
  return d;
}
inline constexpr std::string_view kTestDriver = "dra.example.com";

// Compiles and evaluates through the public API.
inline Result<bool> Match(std::string_view expr, const api::Device& device,
                          std::string_view driver) {
  ALLOT_ASSIGN_OR_RETURN(auto program, CompileDeviceSelector(expr));
  return program->Matches(driver, device);
}
inline Result<bool> Match(std::string_view expr) { return Match(expr, TestDevice(), kTestDriver); }

// Evaluates any expression (not only bools); `render` sees the value while the tree is alive.
template <class F>
Status EvalWith(std::string_view expr, F render, uint64_t cost_limit = 1'000'000) {
  static const api::Device* device = new api::Device(TestDevice());
  std::string text(expr);
  ErrorList errors;
  ExprPtr root = Parse(text, errors);
  if (!root) return Status(StatusCode::kInvalid, errors.Format(text));
  int slots = Check(*root, errors);
  if (!errors.empty()) return Status(StatusCode::kInvalid, errors.Format(text));
  Result<Value> v = Evaluate(*root, EvalOptions{slots, cost_limit}, *device, kTestDriver);
  if (!v.ok()) return v.TakeStatus();
  render(*v);
  return Status::Ok();
}

}  // namespace allot::cel::testing

// Field errors with Kubernetes' messages, and their conversion to a 422 Invalid Status.
//
//   FieldErrors errs;
//   Path spec = Path("spec");
//   if (devices.size() > 128) errs.TooMany(spec.Child("devices"), devices.size(), 128);
//   return errs.ToStatus("ResourceSlice", "resource.k8s.io", name);
//
// produces `ResourceSlice.resource.k8s.io "name" is invalid: spec.devices: Too many: 130: must
// have at most 128 items` with one cause per error (reason FieldValueTooMany, field path).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace allot::api {

// The outcome of compiling one CEL expression, for validation.
struct ExpressionCheckResult {
  // Empty when the expression compiled; otherwise the compiler's message, e.g.
  // "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')...".
  std::string error;
  // The estimated worst-case cost (compiled expressions only).
  int64_t estimated_cost = 0;
};
// Compiles one non-empty expression. Must be thread-safe; validation calls it from any thread.
using ExpressionChecker = ExpressionCheckResult (*)(std::string_view expression);

// Checks that validation needs from layers above api/ (the CEL compiler, cel/), handed in by
// whoever assembles the system: the store takes them in StoreOptions and passes them to every
// ResourceInfo::validate hook (cel::SelectorValidators() gives the real ones). A null member
// means that check is skipped.
struct Validators {
  // DeviceClass and ResourceClaim(Template) selectors: a compile error is
  // `<path>.cel.expression: Invalid value: "<expr>": <error>`, an estimated cost above
  // kCELSelectorExpressionMaxCost `<path>.cel.expression: Forbidden: too complex, exceeds cost
  // limit`, as Kubernetes reports them.
  ExpressionChecker device_selector = nullptr;
};

// A field path under construction: Path("spec").Child("devices").Index(3).Key("gpu").
class Path {
 public:
  Path() = default;
  explicit Path(std::string_view root) : text_(root) {}
  Path Child(std::string_view name) const;
  Path Index(size_t i) const;
  Path Key(std::string_view key) const;
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

class FieldErrors {
 public:
  // "spec.x: Required value" (": <detail>" appended when given).
  void Required(const Path& p, std::string_view detail = {});
  // `spec.x: Invalid value: "foo": <detail>`; the value is quoted as Go's %q would.
  void Invalid(const Path& p, std::string_view value, std::string_view detail);
  void InvalidInt(const Path& p, int64_t value, std::string_view detail);
  // A value that is not a string, rendered as Go's %#v would (`[]string{"/healthz"}`).
  void InvalidRendered(const Path& p, std::string_view rendered, std::string_view detail);
  // "spec.x: Too many: 5: must have at most 4 items"
  void TooMany(const Path& p, int64_t actual, int64_t max);
  // "spec.x: Too long: may not be more than 63 bytes"
  void TooLong(const Path& p, int64_t max);
  // `spec.x: Unsupported value: "foo": supported values: "a", "b"`
  void NotSupported(const Path& p, std::string_view value,
                    const std::vector<std::string_view>& supported);
  // The same for a value that is not a string, rendered as Kubernetes renders it (JSON: a map
  // as `{"cpu":"1"}`, a missing one as `null`).
  void NotSupportedRendered(const Path& p, std::string_view rendered,
                            const std::vector<std::string_view>& supported);
  // `spec.x: Duplicate value: "foo"`
  void Duplicate(const Path& p, std::string_view value);
  // "spec.x: Forbidden: <detail>"
  void Forbidden(const Path& p, std::string_view detail);
  // Spec fields that may not change: "spec: Invalid value: ...: field is immutable".
  void Immutable(const Path& p);

  bool empty() const { return causes_.empty(); }
  size_t size() const { return causes_.size(); }
  const std::vector<StatusCause>& causes() const { return causes_; }
  // Full messages ("spec.x: Required value"), in order.
  std::vector<std::string> Messages() const;

  // 422 Invalid: `<Kind>[.<group>] "<name>" is invalid: <errors>`. OK when empty.
  Status ToStatus(std::string_view kind, std::string_view group, std::string_view name) const;

 private:
  void Add(const Path& p, const char* reason, std::string message);
  std::vector<StatusCause> causes_;
};

// Go's %q for a string: double-quoted with escapes.
std::string Quote(std::string_view s);
// Go's %#v for a []string: []string{"a", "b"}.
std::string GoStringSlice(const std::vector<std::string>& v);
// Go's %q for a []string: ["a" "b"].
std::string GoQuotedList(const std::vector<std::string>& v);

}  // namespace allot::api

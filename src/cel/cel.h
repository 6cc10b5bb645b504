// CEL for DRA device selectors: the public face of the cel/ library.
//
//   ALLOT_ASSIGN_OR_RETURN(auto program, cel::CompileDeviceSelector(
//       "device.capacity['gpu.example.com'].memory.compareTo(quantity('4Gi')) >= 0"));
//   Result<bool> ok = program->Matches("gpu.example.com", slice_device);
//
// The language is the subset of CEL (github.com/google/cel-spec) that Kubernetes offers DRA
// selectors (the Kubernetes DRA documentation's CEL environment): literals, arithmetic, comparison, logical operators with
// CEL's commutative error semantics, `in`, `has()`, indexing, optionals (`.?x`, orValue),
// string and list functions, regular expressions, quantity() and semver() values, cel.bind and
// the comprehension macros. One variable is declared: `device` (driver, attributes, capacity,
// allowMultipleAllocations).
//
// Thread safety: a compiled program is immutable and may be evaluated from many threads at
// once. ProgramCache is thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "api/machinery/validation.h"
#include "common/status.h"

namespace allot::api {
struct Device;
}  // namespace allot::api

namespace allot::cel {

// Kubernetes' limits for DRA selectors: the expression's length, the estimated worst-case cost
// checked when an expression is created, and the cost each evaluation may actually spend.
inline constexpr size_t kMaxExpressionLength = 10 * 1024;
inline constexpr int64_t kCostLimit = 1'000'000;

class DeviceSelectorProgram {
 public:
  virtual ~DeviceSelectorProgram() = default;
  // Evaluates the selector for one device of `driver` (unqualified attribute and capacity names
  // belong to the driver's domain). True or false, or an error when evaluation fails: a missing
  // attribute ("no such key: model"), a type error, a result that is not a bool, the runtime
  // cost limit. The caller treats an error as "does not match" and reports it.
  virtual Result<bool> Matches(std::string_view driver, const api::Device& device) const = 0;
  // The estimated worst-case cost computed at compile time.
  virtual int64_t estimated_cost() const = 0;
  virtual const std::string& expression() const = 0;
};

// Parses and type-checks a selector. InvalidArgument on a syntax or type error, with cel-go's
// message shape: "compilation failed: ERROR: <input>:1:8: undeclared reference to 'foo' ..."
// (line and column 1-based). Expressions longer than kMaxExpressionLength are refused.
// An estimated cost above kCostLimit is not a compile error: the caller checks estimated_cost()
// (validation turns it into "too complex, exceeds cost limit").
Result<std::shared_ptr<const DeviceSelectorProgram>> CompileDeviceSelector(
    std::string_view expression);

// Compiled programs by expression text (compile errors are cached too). Bounded: the least
// recently used entries go when it holds more than `capacity`.
class ProgramCache {
 public:
  explicit ProgramCache(size_t capacity = 4096);
  ~ProgramCache();
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;

  Result<std::shared_ptr<const DeviceSelectorProgram>> Get(std::string_view expression);
  size_t size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The validators that compile DeviceClass and ResourceClaim(Template) selectors with this library
// (api::Validators::device_selector; compiled programs are cached). Whoever builds the store
// puts them in StoreOptions::validators, so every write path validates expressions.
api::Validators SelectorValidators();

}  // namespace allot::cel

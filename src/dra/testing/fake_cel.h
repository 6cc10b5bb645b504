// A stand-in for the CEL library in DRA tests (header-only; tests only).
//
// FakeCompiler understands a tiny selector language, so tests need no real CEL:
//   "true", "false"
//   "driver=gpu.example.com"       the device's driver
//   "name=gpu-1"                   the device's name
//   "model=A100"                   attribute `model` (unqualified or "domain/model") printed as
//                                  string / int / bool / version equals the text; missing: false
//   "model!=A100"                  the negation (missing: true)
//   "has(model)"                   the attribute exists
//   "strict:model=A100"            as "model=A100", but a missing attribute is an evaluation
//                                  error "no such key: model" (what CEL does)
//   "error:boom"                   always an evaluation error "boom"
//   "a && b"                       both (left to right, the first error wins)
// Anything starting with "invalid" fails to compile with "compilation failed: ...".
//
//   FakeCompiler cel;
//   options.compile = cel.AsSelectorCompiler();
//   ... cel.compiles() counts Compile calls, cel.evaluations() counts Matches calls.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "api/resource/types.h"
#include "cel/cel.h"
#include "common/status.h"
#include "dra/allocator.h"
#include "dra/inventory.h"

namespace allot::dra::testing {

using MatchFn = std::function<Result<bool>(std::string_view driver, const api::Device&)>;

class FakeProgram : public cel::DeviceSelectorProgram {
 public:
  FakeProgram(std::string expression, MatchFn fn, std::atomic<int>* evaluations)
      : expression_(std::move(expression)), fn_(std::move(fn)), evaluations_(evaluations) {}
  Result<bool> Matches(std::string_view driver, const api::Device& device) const override {
    if (evaluations_ != nullptr) evaluations_->fetch_add(1);
    return fn_(driver, device);
  }
  int64_t estimated_cost() const override { return 1; }
  const std::string& expression() const override { return expression_; }

 private:
  std::string expression_;
  MatchFn fn_;
  std::atomic<int>* evaluations_;
};

// The attribute's value as text ("A100", "5", "true", "1.0.0"), or nullopt.
inline std::optional<std::string> AttributeText(const api::Device& d, std::string_view driver,
                                                std::string_view name) {
  const api::DeviceAttribute* a = nullptr;
  if (name.find('/') == std::string_view::npos) {
    auto it = d.attributes.find(std::string(name));
    if (it != d.attributes.end()) a = &it->second;
    if (a == nullptr) a = LookupAttribute(d, driver, std::string(driver) + "/" + std::string(name));
  } else {
    a = LookupAttribute(d, driver, name);
  }
  if (a == nullptr) return std::nullopt;
  if (a->intValue) return std::to_string(*a->intValue);
  if (a->boolValue) return *a->boolValue ? "true" : "false";
  if (a->stringValue) return *a->stringValue;
  if (a->versionValue) return *a->versionValue;
  return std::nullopt;
}

inline Result<MatchFn> ParseFakeSelector(std::string_view expr) {
  if (expr.rfind("invalid", 0) == 0) {
    return Status(StatusCode::kInvalid,
                  "compilation failed: ERROR: <input>:1:1: undeclared reference to '" +
                      std::string(expr) + "'");
  }
  size_t amp = expr.find(" && ");
  if (amp != std::string_view::npos) {
    auto left = ParseFakeSelector(expr.substr(0, amp));
    if (!left.ok()) return left.status();
    auto right = ParseFakeSelector(expr.substr(amp + 4));
    if (!right.ok()) return right.status();
    return MatchFn([l = *left, r = *right](std::string_view driver, const api::Device& d) {
      Result<bool> a = l(driver, d);
      if (!a.ok() || !*a) return a;
      return r(driver, d);
    });
  }
  if (expr == "true" || expr == "false") {
    bool v = expr == "true";
    return MatchFn([v](std::string_view, const api::Device&) -> Result<bool> { return v; });
  }
  if (expr.rfind("error:", 0) == 0) {
    std::string msg(expr.substr(6));
    return MatchFn([msg](std::string_view, const api::Device&) -> Result<bool> {
      return Status(StatusCode::kBadRequest, msg);
    });
  }
  if (expr.rfind("has(", 0) == 0 && expr.back() == ')') {
    std::string name(expr.substr(4, expr.size() - 5));
    return MatchFn([name](std::string_view driver, const api::Device& d) -> Result<bool> {
      return AttributeText(d, driver, name).has_value();
    });
  }
  bool strict = false;
  if (expr.rfind("strict:", 0) == 0) {
    strict = true;
    expr.remove_prefix(7);
  }
  bool negate = false;
  size_t op = expr.find("!=");
  size_t len = 2;
  if (op != std::string_view::npos) {
    negate = true;
  } else {
    op = expr.find('=');
    len = 1;
  }
  if (op == std::string_view::npos) {
    return Status(StatusCode::kInvalid,
                  "compilation failed: cannot parse '" + std::string(expr) + "'");
  }
  std::string key(expr.substr(0, op));
  std::string want(expr.substr(op + len));
  return MatchFn([=](std::string_view driver, const api::Device& d) -> Result<bool> {
    std::optional<std::string> got;
    if (key == "driver") {
      got = std::string(driver);
    } else if (key == "name") {
      got = d.name;
    } else {
      got = AttributeText(d, driver, key);
    }
    if (!got) {
      if (strict) return Status(StatusCode::kBadRequest, "no such key: " + key);
      return negate;
    }
    return (*got == want) != negate;
  });
}

class FakeCompiler {
 public:
  Result<std::shared_ptr<const cel::DeviceSelectorProgram>> Compile(std::string_view expression) {
    compiles_.fetch_add(1);
    auto fn = ParseFakeSelector(expression);
    if (!fn.ok()) return fn.status();
    return std::shared_ptr<const cel::DeviceSelectorProgram>(
        std::make_shared<FakeProgram>(std::string(expression), *fn, &evaluations_));
  }
  SelectorCompiler AsSelectorCompiler() {
    return [this](std::string_view e) { return Compile(e); };
  }
  int compiles() const { return compiles_.load(); }
  int evaluations() const { return evaluations_.load(); }

 private:
  std::atomic<int> compiles_{0};
  std::atomic<int> evaluations_{0};
};

}  // namespace allot::dra::testing

// CompileDeviceSelector, the compiled program, ProgramCache and the validation hook: the glue
// between the parser, checker, cost estimator and interpreter (see cel/cel.h).
#include "cel/cel.h"

#include <algorithm>
#include <list>
#include <mutex>
#include <unordered_map>

#include "api/resource/types.h"
#include "api/resource/validation.h"
#include "cel/checker.h"
#include "cel/cost.h"
#include "cel/interpreter.h"
#include "cel/parser.h"

namespace allot::cel {

namespace {

Status CompileFailure(std::string message) {
  return Status(StatusCode::kInvalid, std::move(message));
}

class Program final : public DeviceSelectorProgram {
 public:
  Program(std::string expression, ExprPtr root, int num_slots, int64_t estimated_cost)
      : expression_(std::move(expression)),
        root_(std::move(root)),
        num_slots_(num_slots),
        estimated_cost_(estimated_cost) {}

  Result<bool> Matches(std::string_view driver, const api::Device& device) const override {
    EvalOptions options{num_slots_, static_cast<uint64_t>(kCostLimit)};
    Result<Value> v = Evaluate(*root_, options, device, driver);
    if (!v.ok()) return v.TakeStatus();
    if (v->kind() != ValueKind::kBool) {
      std::string type(RuntimeTypeName(*v));
      return Status(StatusCode::kInvalid, "CEL result of type " + type +
                                              " could not be converted to bool: unsupported "
                                              "native conversion from " +
                                              type + " to 'bool'");
    }
    return v->bool_value();
  }

  int64_t estimated_cost() const override { return estimated_cost_; }
  const std::string& expression() const override { return expression_; }

 private:
  std::string expression_;
  ExprPtr root_;
  int num_slots_;
  int64_t estimated_cost_;
};

}  // namespace

Result<std::shared_ptr<const DeviceSelectorProgram>> CompileDeviceSelector(
    std::string_view expression) {
  if (expression.size() > kMaxExpressionLength) {
    return CompileFailure(
        "expression code point size exceeds limit: size: " + std::to_string(expression.size()) +
        ", limit " + std::to_string(kMaxExpressionLength));
  }
  std::string text(expression);
  ErrorList errors;
  ExprPtr root = Parse(text, errors);
  if (!root) return CompileFailure("compilation failed: " + errors.Format(text));
  int slots = Check(*root, errors);
  if (!errors.empty()) return CompileFailure("compilation failed: " + errors.Format(text));
  const Type& out = *root->type;
  if (out.kind != TypeKind::kBool && out.kind != TypeKind::kDyn) {
    return CompileFailure("must evaluate to bool or the unknown type, not " + TypeName(out));
  }
  uint64_t cost = EstimateCost(*root);
  auto estimated = static_cast<int64_t>(
      std::min<uint64_t>(cost, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
  return std::shared_ptr<const DeviceSelectorProgram>(
      std::make_shared<Program>(std::move(text), std::move(root), slots, estimated));
}

// --- ProgramCache ------------------------------------------------------------------------------

struct ProgramCache::Impl {
  using Entry = std::pair<std::string, Result<std::shared_ptr<const DeviceSelectorProgram>>>;

  size_t capacity;
  mutable std::mutex mu;
  std::list<Entry> lru;  // most recently used first; guarded by mu
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index;  // guarded by mu
};

ProgramCache::ProgramCache(size_t capacity) : impl_(std::make_unique<Impl>()) {
  impl_->capacity = std::max<size_t>(capacity, 1);
}

ProgramCache::~ProgramCache() = default;

Result<std::shared_ptr<const DeviceSelectorProgram>> ProgramCache::Get(
    std::string_view expression) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->index.find(expression);
    if (it != impl_->index.end()) {
      impl_->lru.splice(impl_->lru.begin(), impl_->lru, it->second);
      return it->second->second;
    }
  }
  // Compile outside the lock; a concurrent miss for the same text compiles twice, harmlessly.
  Result<std::shared_ptr<const DeviceSelectorProgram>> compiled = CompileDeviceSelector(expression);
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->index.find(expression);
  if (it != impl_->index.end()) return it->second->second;
  impl_->lru.emplace_front(std::string(expression), compiled);
  impl_->index.emplace(impl_->lru.front().first, impl_->lru.begin());
  while (impl_->lru.size() > impl_->capacity) {
    impl_->index.erase(impl_->lru.back().first);
    impl_->lru.pop_back();
  }
  return compiled;
}

size_t ProgramCache::size() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->lru.size();
}

// --- validation hook ---------------------------------------------------------------------------

namespace {

api::ExpressionCheckResult CheckSelector(std::string_view expression) {
  static ProgramCache* cache = new ProgramCache(1024);
  api::ExpressionCheckResult out;
  Result<std::shared_ptr<const DeviceSelectorProgram>> p = cache->Get(expression);
  if (!p.ok()) {
    out.error = p.status().message();
  } else {
    out.estimated_cost = (*p)->estimated_cost();
  }
  return out;
}

}  // namespace

api::Validators SelectorValidators() { return {.device_selector = &CheckSelector}; }

}  // namespace allot::cel

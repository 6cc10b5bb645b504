#include "cel/library.h"

namespace allot::cel {

const Library& Library::Get() {
  static const Library* lib = [] {
    auto* l = new Library();
    RegisterCoreFunctions(*l);
    RegisterStringFunctions(*l);
    RegisterListFunctions(*l);
    RegisterQuantityFunctions(*l);
    RegisterSemverFunctions(*l);
    RegisterOptionalFunctions(*l);
    return l;
  }();
  return *lib;
}

const Function* Library::Find(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

void Library::Add(std::string_view name, Overload overload) {
  auto it = functions_.find(name);
  if (it == functions_.end()) {
    it = functions_.emplace(std::string(name), Function{std::string(name), {}}).first;
  }
  it->second.overloads.push_back(std::move(overload));
}

bool ValueMatches(const Value& v, const Type& t) {
  switch (t.kind) {
    case TypeKind::kDyn:
    case TypeKind::kParam:
    case TypeKind::kError:
      return true;
    case TypeKind::kNull:
      return v.kind() == ValueKind::kNull;
    case TypeKind::kBool:
      return v.kind() == ValueKind::kBool;
    case TypeKind::kInt:
      return v.kind() == ValueKind::kInt;
    case TypeKind::kUint:
      return v.kind() == ValueKind::kUint;
    case TypeKind::kDouble:
      return v.kind() == ValueKind::kDouble;
    case TypeKind::kString:
      return v.kind() == ValueKind::kString;
    case TypeKind::kBytes:
      return v.kind() == ValueKind::kBytes;
    case TypeKind::kList:
      return v.kind() == ValueKind::kList;
    case TypeKind::kMap:
      return v.IsMap();
    case TypeKind::kOptional:
      return v.kind() == ValueKind::kOptional;
    case TypeKind::kType:
      return v.kind() == ValueKind::kType;
    case TypeKind::kQuantity:
      return v.kind() == ValueKind::kQuantity;
    case TypeKind::kSemver:
      return v.kind() == ValueKind::kSemver;
    case TypeKind::kDevice:
      return v.kind() == ValueKind::kDevice;
  }
  return false;
}

Status ChargeOutput(const CallContext& ctx, uint64_t bytes) {
  uint64_t cost = bytes / 10 + 1;
  if (ctx.extra_cost) *ctx.extra_cost = SatAdd(*ctx.extra_cost, cost);
  if (cost > ctx.remaining) return EvalError(std::string(kCostLimitExceeded));
  return Status::Ok();
}

Status NoSuchOverload() { return EvalError("no such overload"); }

}  // namespace allot::cel

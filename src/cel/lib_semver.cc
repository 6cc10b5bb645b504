// The Kubernetes Semver library (version 1): semver(), semver(s, normalize), isSemver() and the
// Semver methods major/minor/patch/compareTo/isGreaterThan/isLessThan.
#include "cel/library.h"
#include "cel/semver.h"

namespace allot::cel {

namespace {

using Args = std::span<const Value>;
using R = Result<Value>;

void Reg(Library& lib, std::string_view name, std::string id, std::vector<TypePtr> params,
         TypePtr result, FunctionImpl impl, bool member = true, CostModel cost = CostModel::kOne) {
  lib.Add(name, Overload{std::move(id), member, std::move(params), std::move(result), impl, cost});
}

bool Normalize(Args a) { return a.size() > 1 && a[1].bool_value(); }

R ToSemver(const CallContext&, Args a) {
  Result<Semver> v = ParseSemver(a[0].string_value(), Normalize(a));
  if (!v.ok()) return EvalError(v.status().message());
  return Value::Semver(std::make_shared<const Semver>(std::move(*v)));
}

R IsSemver(const CallContext&, Args a) {
  return Value::Bool(ParseSemver(a[0].string_value(), Normalize(a)).ok());
}

R Major(const CallContext&, Args a) {
  return Value::Int(static_cast<int64_t>(a[0].semver().major));
}
R Minor(const CallContext&, Args a) {
  return Value::Int(static_cast<int64_t>(a[0].semver().minor));
}
R Patch(const CallContext&, Args a) {
  return Value::Int(static_cast<int64_t>(a[0].semver().patch));
}
R CompareTo(const CallContext&, Args a) {
  return Value::Int(CompareSemver(a[0].semver(), a[1].semver()));
}
R IsGreaterThan(const CallContext&, Args a) {
  return Value::Bool(CompareSemver(a[0].semver(), a[1].semver()) > 0);
}
R IsLessThan(const CallContext&, Args a) {
  return Value::Bool(CompareSemver(a[0].semver(), a[1].semver()) < 0);
}

}  // namespace

void RegisterSemverFunctions(Library& lib) {
  TypePtr v = types::Semver(), s = types::String(), b = types::Bool(), i = types::Int();
  Reg(lib, "semver", "string_to_semver", {s}, v, ToSemver, false, CostModel::kStringScan);
  Reg(lib, "semver", "string_bool_to_semver", {s, b}, v, ToSemver, false, CostModel::kStringScan);
  Reg(lib, "isSemver", "is_semver_string", {s}, b, IsSemver, false, CostModel::kStringScan);
  Reg(lib, "isSemver", "is_semver_string_bool", {s, b}, b, IsSemver, false, CostModel::kStringScan);
  Reg(lib, "major", "semver_major", {v}, i, Major);
  Reg(lib, "minor", "semver_minor", {v}, i, Minor);
  Reg(lib, "patch", "semver_patch", {v}, i, Patch);
  Reg(lib, "compareTo", "semver_compare_to", {v, v}, i, CompareTo);
  Reg(lib, "isGreaterThan", "semver_is_greater_than", {v, v}, b, IsGreaterThan);
  Reg(lib, "isLessThan", "semver_is_less_than", {v, v}, b, IsLessThan);
}

}  // namespace allot::cel

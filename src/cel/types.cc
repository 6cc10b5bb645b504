#include "cel/types.h"

namespace allot::cel {

namespace {

TypePtr Make(TypeKind kind, std::vector<TypePtr> params = {}) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  t->params = std::move(params);
  return t;
}

}  // namespace

namespace types {

#define ALLOT_CEL_SINGLETON(Fn, kind)                  \
  TypePtr Fn() {                                       \
    static const TypePtr* t = new TypePtr(Make(kind)); \
    return *t;                                         \
  }
ALLOT_CEL_SINGLETON(Dyn, TypeKind::kDyn)
ALLOT_CEL_SINGLETON(Error, TypeKind::kError)
ALLOT_CEL_SINGLETON(Null, TypeKind::kNull)
ALLOT_CEL_SINGLETON(Bool, TypeKind::kBool)
ALLOT_CEL_SINGLETON(Int, TypeKind::kInt)
ALLOT_CEL_SINGLETON(Uint, TypeKind::kUint)
ALLOT_CEL_SINGLETON(Double, TypeKind::kDouble)
ALLOT_CEL_SINGLETON(String, TypeKind::kString)
ALLOT_CEL_SINGLETON(Bytes, TypeKind::kBytes)
ALLOT_CEL_SINGLETON(Quantity, TypeKind::kQuantity)
ALLOT_CEL_SINGLETON(Semver, TypeKind::kSemver)
ALLOT_CEL_SINGLETON(Device, TypeKind::kDevice)
#undef ALLOT_CEL_SINGLETON

TypePtr List(TypePtr elem) { return Make(TypeKind::kList, {std::move(elem)}); }
TypePtr Map(TypePtr key, TypePtr value) {
  return Make(TypeKind::kMap, {std::move(key), std::move(value)});
}
TypePtr Optional(TypePtr wrapped) { return Make(TypeKind::kOptional, {std::move(wrapped)}); }
TypePtr TypeOf(TypePtr denoted) { return Make(TypeKind::kType, {std::move(denoted)}); }
TypePtr Param(std::string name) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kParam;
  t->name = std::move(name);
  return t;
}

}  // namespace types

std::string TypeName(const Type& t) {
  switch (t.kind) {
    case TypeKind::kDyn:
      return "dyn";
    case TypeKind::kError:
      return "*error*";
    case TypeKind::kNull:
      return "null_type";
    case TypeKind::kBool:
      return "bool";
    case TypeKind::kInt:
      return "int";
    case TypeKind::kUint:
      return "uint";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kString:
      return "string";
    case TypeKind::kBytes:
      return "bytes";
    case TypeKind::kList:
      return "list(" + TypeName(*t.params[0]) + ")";
    case TypeKind::kMap:
      return "map(" + TypeName(*t.params[0]) + ", " + TypeName(*t.params[1]) + ")";
    case TypeKind::kOptional:
      return "optional_type(" + TypeName(*t.params[0]) + ")";
    case TypeKind::kType:
      return "type(" + TypeName(*t.params[0]) + ")";
    case TypeKind::kQuantity:
      return "kubernetes.Quantity";
    case TypeKind::kSemver:
      return "kubernetes.Semver";
    case TypeKind::kDevice:
      return "kubernetes.DRADevice";
    case TypeKind::kParam:
      return t.name;
  }
  return "dyn";
}

bool IsDynOrError(const Type& t) { return t.kind == TypeKind::kDyn || t.kind == TypeKind::kError; }

bool Unify(const TypePtr& formal, const TypePtr& actual, TypeBindings& bindings) {
  if (IsDynOrError(*actual) || formal->kind == TypeKind::kDyn) return true;
  if (formal->kind == TypeKind::kParam) {
    auto it = bindings.find(formal->name);
    if (it == bindings.end()) {
      bindings[formal->name] = actual;
      return true;
    }
    if (IsDynOrError(*it->second)) return true;
    TypeBindings none;
    if (Unify(it->second, actual, none)) return true;
    // int bound first, then dyn-compatible: widen nothing; a mismatch fails.
    return false;
  }
  if (formal->kind != actual->kind) return false;
  if (formal->params.size() != actual->params.size()) return false;
  for (size_t i = 0; i < formal->params.size(); ++i) {
    if (!Unify(formal->params[i], actual->params[i], bindings)) return false;
  }
  return true;
}

TypePtr Substitute(const TypePtr& t, const TypeBindings& bindings) {
  if (t->kind == TypeKind::kParam) {
    auto it = bindings.find(t->name);
    return it == bindings.end() ? types::Dyn() : it->second;
  }
  if (t->params.empty()) return t;
  auto out = std::make_shared<Type>(*t);
  for (TypePtr& p : out->params) p = Substitute(p, bindings);
  return out;
}

bool SameType(const Type& a, const Type& b) {
  if (a.kind != b.kind || a.params.size() != b.params.size()) return false;
  if (a.kind == TypeKind::kParam) return a.name == b.name;
  for (size_t i = 0; i < a.params.size(); ++i) {
    if (!SameType(*a.params[i], *b.params[i])) return false;
  }
  return true;
}

TypePtr JoinTypes(const TypePtr& a, const TypePtr& b) {
  if (a->kind == TypeKind::kError) return b;
  if (b->kind == TypeKind::kError) return a;
  if (SameType(*a, *b)) return a;
  return types::Dyn();
}

}  // namespace allot::cel

// The static types the CEL checker works with, and their cel-go spellings ("int",
// "list(string)", "map(string, dyn)", "optional_type(int)", "kubernetes.Quantity").
//
// Types are immutable and shared (TypePtr); the primitive types are process-wide singletons.
// Type parameters ("A", "K", "V") appear only in function signatures (library.h); the checker
// binds them while resolving an overload (see Unify).
//
// Thread safety: immutable; the singletons are initialized on first use (thread-safe statics).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace allot::cel {

enum class TypeKind : uint8_t {
  kDyn,
  kError,  // the type of an expression that already failed to check (suppresses cascades)
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,      // params[0]: element
  kMap,       // params[0]: key, params[1]: value
  kOptional,  // params[0]: wrapped
  kType,      // params[0]: the type denoted (a type value, e.g. `int`)
  kQuantity,  // kubernetes.Quantity (opaque)
  kSemver,    // kubernetes.Semver (opaque)
  kDevice,    // kubernetes.DRADevice (an object with declared fields)
  kParam,     // a type parameter in a signature; `name` is its name
};

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Type {
  TypeKind kind = TypeKind::kDyn;
  std::vector<TypePtr> params;
  std::string name;  // kParam only
};

namespace types {
TypePtr Dyn();
TypePtr Error();
TypePtr Null();
TypePtr Bool();
TypePtr Int();
TypePtr Uint();
TypePtr Double();
TypePtr String();
TypePtr Bytes();
TypePtr Quantity();
TypePtr Semver();
TypePtr Device();
TypePtr List(TypePtr elem);
TypePtr Map(TypePtr key, TypePtr value);
TypePtr Optional(TypePtr wrapped);
TypePtr TypeOf(TypePtr denoted);
TypePtr Param(std::string name);
}  // namespace types

// cel-go's FormatCELType spelling.
std::string TypeName(const Type& t);

bool IsDynOrError(const Type& t);

// Type-parameter bindings collected while matching one overload.
using TypeBindings = std::map<std::string, TypePtr>;

// Whether a value of type `actual` may be passed where `formal` is expected, binding the type
// parameters of `formal` in `bindings`. dyn is assignable both ways, as in cel-go.
bool Unify(const TypePtr& formal, const TypePtr& actual, TypeBindings& bindings);

// `t` with its type parameters replaced by their bindings (unbound ones become dyn).
TypePtr Substitute(const TypePtr& t, const TypeBindings& bindings);

// Structural equality (dyn equals only dyn).
bool SameType(const Type& a, const Type& b);

// The least general type of two branch/element types: the type itself when both agree, else
// dyn (cel-go joins mismatching list elements and map entries to dyn).
TypePtr JoinTypes(const TypePtr& a, const TypePtr& b);

}  // namespace allot::cel

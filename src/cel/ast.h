// The CEL abstract syntax tree, as produced by the parser (macros already expanded) and
// annotated in place by the checker.
//
// Node shapes (args):
//   kConst          -                    `constant` (string/bytes payload kept in `text`)
//   kIdent          -                    `name`
//   kSelect         [operand]            `name` = field; test_only for has(); optional for `.?`
//   kCall           [target?] args...    `name` = function ("_+_", "size", "startsWith");
//                                        has_target: args[0] is the receiver
//   kList           elements             optional_entries[i]: `[?x]`
//   kMap            k0, v0, k1, v1...    optional_entries[i]: `{?k: v}`
//   kComprehension  [range, a, b?]       `name` = iteration variable; macro: all/exists/
//                                        exists_one (a = predicate), map (a = transform),
//                                        map with filter (a = filter, b = transform),
//                                        filter (a = predicate)
//   kBind           [init, body]         cel.bind(name, init, body)
//
// Thread safety: built and annotated by one compilation; immutable afterwards and shared by
// concurrent evaluations.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cel/source.h"
#include "cel/types.h"
#include "cel/value.h"

namespace allot::cel {

struct Overload;
class Regex;

enum class ExprKind : uint8_t {
  kConst,
  kIdent,
  kSelect,
  kCall,
  kList,
  kMap,
  kComprehension,
  kBind
};

enum class MacroKind : uint8_t { kAll, kExists, kExistsOne, kMap, kMapFilter, kFilter };

// Calls the interpreter evaluates specially (set by the parser).
enum class SpecialCall : uint8_t { kNone, kAnd, kOr, kTernary, kIndex, kOptIndex };

// What an identifier resolved to (checker).
enum class IdentKind : uint8_t { kUnresolved, kDevice, kTypeName, kLocal };

struct Expr {
  ExprKind kind = ExprKind::kConst;
  Offset offset = 0;
  int32_t height = 1;  // 1 + the tallest child (parser limit kMaxAstHeight)

  Value constant;
  std::string text;  // payload of a string/bytes constant; `constant` views it

  std::string name;
  bool test_only = false;
  bool optional = false;
  bool has_target = false;
  SpecialCall special = SpecialCall::kNone;
  MacroKind macro = MacroKind::kAll;
  std::vector<std::unique_ptr<Expr>> args;
  std::vector<bool> optional_entries;

  // --- checker annotations ---
  TypePtr type;
  std::vector<const Overload*> overloads;  // kCall: candidates, in declaration order
  IdentKind ident_kind = IdentKind::kUnresolved;
  int slot = -1;                       // kIdent (local), kComprehension, kBind: the variable's slot
  std::shared_ptr<const Regex> regex;  // kCall of a regex function with a constant pattern
};

using ExprPtr = std::unique_ptr<Expr>;

}  // namespace allot::cel

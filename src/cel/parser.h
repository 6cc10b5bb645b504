// Parses CEL source into an AST (ast.h), expanding the macros has(), all(), exists(),
// exists_one(), map() (2 and 3 arguments), filter() and cel.bind().
//
// Grammar (cel-spec langdef.md), by precedence from loosest:
//   Expr     = Or ["?" Or ":" Expr]
//   Or       = And {"||" And}            (&& and || chains are built as balanced trees, as
//   And      = Rel {"&&" Rel}             cel-go does; they are associative)
//   Rel      = Add {("<"|"<="|">="|">"|"=="|"!="|"in") Add}
//   Add      = Mul {("+"|"-") Mul}
//   Mul      = Unary {("*"|"/"|"%") Unary}
//   Unary    = Member | "!"+ Member | "-"+ Member
//   Member   = Primary {"." ["?"] IDENT ["(" args ")"] | "[" ["?"] Expr "]"}
//   Primary  = ["."] IDENT ["(" args ")"] | "(" Expr ")" | "[" elems "]" | "{" entries "}" |
//   literal
//
// Limits: an expression nested more than kMaxRecursionDepth levels deep fails with cel-go's
// "expression recursion limit exceeded: 250"; an AST taller than kMaxAstHeight (long operator
// chains such as 1+1+...+1) fails with "max recursion depth exceeded", so that the recursive
// checker, cost estimator and interpreter stay within a small, fixed stack.
//
// Thread safety: Parse is reentrant.
#pragma once

#include <string_view>

#include "cel/ast.h"
#include "cel/source.h"

namespace allot::cel {

inline constexpr int kMaxRecursionDepth = 250;
inline constexpr int kMaxAstHeight = 1000;

// Returns the AST, or nullptr with at least one error in `errors` (syntax errors are reported
// with the "Syntax error: ..." messages of cel-go's ANTLR parser where practical).
ExprPtr Parse(std::string_view source, ErrorList& errors);

}  // namespace allot::cel

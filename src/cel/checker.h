// Type-checks a parsed expression against the DRA selector environment: the variable `device`
// (kubernetes.DRADevice: driver string, attributes map(string, map(string, dyn)), capacity
// map(string, map(string, kubernetes.Quantity)), allowMultipleAllocations bool), the type
// identifiers (int, string, ...), and the function library (library.h).
//
// Annotates every node in place (Expr::type; calls: the candidate overloads; identifiers:
// what they resolved to; comprehension and bind variables: their slot; regex calls with a
// constant pattern: the compiled pattern). Errors use cel-go's messages:
//   undeclared reference to 'foo' (in container '')
//   undefined field 'foo'
//   found no matching overload for '_+_' applied to '(int, string)'
//   found no matching overload for 'contains' applied to 'string.(int)'
//   type 'int' does not support field selection
//
// Thread safety: Check mutates only the given tree.
#pragma once

#include "cel/ast.h"
#include "cel/source.h"

namespace allot::cel {

// Returns the number of variable slots the interpreter needs (comprehension and bind
// variables in scope at once).
int Check(Expr& root, ErrorList& errors);

}  // namespace allot::cel

// Source text and compile-error reporting in cel-go's display form:
//
//   ERROR: <input>:1:8: undefined field 'foo'
//    | device.foo
//    | ......^
//
// Lines are 1-based; columns are 1-based and counted in code points (cel-go counts runes); the
// caret line uses a full-width dot for each multi-byte character before the caret, as cel-go does.
//
// Thread safety: an ErrorList is used by one compilation at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allot::cel {

// Byte offset into the expression text.
using Offset = int32_t;

struct CompileError {
  Offset offset = 0;
  std::string message;
};

class ErrorList {
 public:
  void Add(Offset offset, std::string message);
  bool empty() const { return errors_.empty(); }
  size_t size() const { return errors_.size(); }
  const std::vector<CompileError>& errors() const { return errors_; }
  // All errors sorted by position, one display block each, joined by "\n".
  std::string Format(std::string_view source) const;

 private:
  std::vector<CompileError> errors_;
};

// The display block of one error (see above).
std::string FormatError(std::string_view source, const CompileError& error);

}  // namespace allot::cel

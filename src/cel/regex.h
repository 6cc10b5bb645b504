// Regular expressions for CEL's matches(), find() and findAll(): RE2 (Debian's libre2), the
// engine and syntax cel-go uses through Go's regexp package — linear time in the text, no
// back-references, leftmost-first (Perl) match semantics, Unicode classes (\p{L}, \pN),
// case folding with (?i).
//
// Errors read like Go's: "error parsing regexp: missing closing ]: `[`".
//
// Thread safety: a compiled Regex is immutable and may be used from many threads.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/status.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace allot::cel {

class Regex {
 public:
  static Result<std::shared_ptr<const Regex>> Compile(std::string_view pattern);

  // Whether the pattern matches anywhere in `text`.
  bool Search(std::string_view text) const;
  // Byte range [first, second) of the leftmost-first match starting at or after `from`; the
  // text before `from` still counts as context for ^ and \b.
  std::optional<std::pair<size_t, size_t>> Find(std::string_view text, size_t from = 0) const;

  const std::string& pattern() const { return pattern_; }

  explicit Regex(std::unique_ptr<re2::RE2> re);
  ~Regex();

 private:
  std::string pattern_;
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace allot::cel

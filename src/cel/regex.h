// A small regular-expression engine with RE2 syntax and guarantees, for CEL's matches(),
// find() and findAll().
//
// Why not std::regex: its ECMAScript syntax differs from RE2 (no (?i) flags, no \z, no
// (?P<name>)), and libstdc++'s backtracking matcher recurses per input character and can take
// exponential time, so a hostile selector could hang or crash the scheduler. RE2 itself
// (libre2-dev) is not a dependency of this build. This engine compiles the pattern to a Thompson
// NFA and runs a Pike VM: time O(len(pattern) * len(text)), memory O(len(pattern)), no recursion
// while matching, leftmost-first (Perl/RE2) match semantics.
//
// Supported: literals (UTF-8), `.`, `[...]` classes with ranges, negation, escapes and
// [:alpha:]-style POSIX classes, \d \D \s \S \w \W, \b \B, ^ $ \A \z, groups `(...)`, `(?:...)`,
// `(?P<name>...)`, `(?<name>...)`, flags `(?imsU)` and `(?i:...)`, alternation, * + ? {n} {n,}
// {n,m} with lazy `?` variants, escapes \a \f \t \n \r \v \x41 \x{263a} and \Q...\E.
// Not supported (compile error): back-references (also unsupported by RE2), \p{...} Unicode
// classes, \C. Case-insensitive matching folds ASCII letters only. Repeat counts are limited
// to 1000 and programs to 20,000 instructions, as RE2 limits them.
//
// Thread safety: a compiled Regex is immutable and may be used from many threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace allot::cel {

class Regex {
 public:
  // Errors look like Go's: "error parsing regexp: missing closing ): `(a`".
  static Result<std::shared_ptr<const Regex>> Compile(std::string_view pattern);

  // Whether the pattern matches anywhere in `text`.
  bool Search(std::string_view text) const;
  // Byte range [first, second) of the leftmost-first match starting at or after `from`.
  std::optional<std::pair<size_t, size_t>> Find(std::string_view text, size_t from = 0) const;

  const std::string& pattern() const { return pattern_; }

  struct Inst;  // program instruction (regex.cc)
  ~Regex();
  Regex();

 private:
  std::optional<std::pair<size_t, size_t>> Run(std::string_view text, size_t from,
                                               bool first_only) const;

  std::string pattern_;
  std::vector<Inst> prog_;
  int start_ = 0;
};

}  // namespace allot::cel

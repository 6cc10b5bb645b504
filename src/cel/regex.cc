#include "cel/regex.h"

#include <re2/re2.h>

namespace allot::cel {

namespace {

// Go's regexp/syntax ErrorCode text for each of RE2's parse errors.
std::string_view GoErrorText(re2::RE2::ErrorCode code) {
  switch (code) {
    case re2::RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case re2::RE2::ErrorBadCharClass:
      return "invalid character class";
    case re2::RE2::ErrorBadCharRange:
      return "invalid character class range";
    case re2::RE2::ErrorMissingBracket:
      return "missing closing ]";
    case re2::RE2::ErrorMissingParen:
      return "missing closing )";
    case re2::RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case re2::RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case re2::RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case re2::RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case re2::RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case re2::RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case re2::RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case re2::RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case re2::RE2::ErrorPatternTooLarge:
      return "expression too large";
    case re2::RE2::NoError:
    case re2::RE2::ErrorInternal:
      break;
  }
  return "internal error";
}

}  // namespace

Regex::Regex(std::unique_ptr<re2::RE2> re) : pattern_(re->pattern()), re_(std::move(re)) {}
Regex::~Regex() = default;

Result<std::shared_ptr<const Regex>> Regex::Compile(std::string_view pattern) {
  re2::RE2::Options options;  // UTF-8, Perl classes and \b, as Go's regexp.Compile
  options.set_log_errors(false);
  auto re = std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    std::string message = "error parsing regexp: " + std::string(GoErrorText(re->error_code()));
    if (re->error_code() != re2::RE2::ErrorPatternTooLarge) {
      message += ": `" + re->error_arg() + "`";
    }
    return Status(StatusCode::kInvalid, message);
  }
  return std::make_shared<const Regex>(std::move(re));
}

bool Regex::Search(std::string_view text) const {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

std::optional<std::pair<size_t, size_t>> Regex::Find(std::string_view text, size_t from) const {
  if (from > text.size()) return std::nullopt;
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece match;
  if (!re_->Match(input, from, text.size(), re2::RE2::UNANCHORED, &match, 1)) return std::nullopt;
  const size_t begin = static_cast<size_t>(match.data() - text.data());
  return std::make_pair(begin, begin + match.size());
}

}  // namespace allot::cel

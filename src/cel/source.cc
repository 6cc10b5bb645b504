#include "cel/source.h"

#include <algorithm>

namespace allot::cel {

namespace {

// Errors beyond this many are dropped (cel-go caps its report similarly).
constexpr size_t kMaxReportedErrors = 100;

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

void ErrorList::Add(Offset offset, std::string message) {
  if (errors_.size() >= kMaxReportedErrors) return;
  errors_.push_back(CompileError{offset, std::move(message)});
}

std::string ErrorList::Format(std::string_view source) const {
  std::vector<CompileError> sorted = errors_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const CompileError& a, const CompileError& b) {
    return a.offset < b.offset;
  });
  std::string out;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i) out += "\n";
    out += FormatError(source, sorted[i]);
  }
  return out;
}

std::string FormatError(std::string_view source, const CompileError& error) {
  size_t offset = std::min(static_cast<size_t>(std::max<Offset>(error.offset, 0)), source.size());
  size_t line_start = 0;
  int line = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (source[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  size_t line_end = source.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = source.size();
  std::string_view snippet = source.substr(line_start, line_end - line_start);

  std::string indicator;
  int column = 0;  // code points before the error on its line
  for (size_t i = line_start; i < offset; ++i) {
    if (IsContinuationByte(source[i])) continue;
    ++column;
    bool wide = static_cast<unsigned char>(source[i]) >= 0x80;
    indicator += wide ? "\xEF\xBC\x8E" : ".";  // U+FF0E FULLWIDTH FULL STOP
  }
  bool wide_at = offset < source.size() && static_cast<unsigned char>(source[offset]) >= 0x80 &&
                 offset < line_end;
  indicator += wide_at ? "\xEF\xBC\xBE" : "^";  // U+FF3E FULLWIDTH CIRCUMFLEX ACCENT

  std::string shown(snippet);
  std::replace(shown.begin(), shown.end(), '\t', ' ');
  std::string out = "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(column + 1) +
                    ": " + error.message;
  out += "\n | " + shown + "\n | " + indicator;
  return out;
}

}  // namespace allot::cel

#include "common/go_duration.h"

#include <cstdint>
#include <limits>
#include <string>

namespace allot {

namespace {

constexpr uint64_t kNanosPerMicro = 1000;

Status Invalid(std::string_view text) {
  return BadRequestError("time: invalid duration \"" + std::string(text) + "\"");
}

// Nanoseconds per unit; 0 for an unknown unit.
uint64_t UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1000;  // µs, μs
  if (unit == "ms") return 1000000;
  if (unit == "s") return 1000000000ULL;
  if (unit == "m") return 60ULL * 1000000000ULL;
  if (unit == "h") return 3600ULL * 1000000000ULL;
  return 0;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads digits at text[pos...] into `value` (saturating flag on overflow); returns the count.
size_t ReadDigits(std::string_view text, size_t& pos, uint64_t& value, bool& overflow) {
  size_t start = pos;
  while (pos < text.size() && IsDigit(text[pos])) {
    uint64_t d = static_cast<uint64_t>(text[pos] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      overflow = true;
    } else {
      value = value * 10 + d;
    }
    ++pos;
  }
  return pos - start;
}

}  // namespace

Result<std::chrono::microseconds> ParseGoDuration(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::microseconds(0);
  if (s.empty()) return Invalid(text);
  // Go works in int64 nanoseconds; so do we, then truncate to microseconds.
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t total = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    uint64_t whole = 0, frac = 0, scale = 1;
    bool overflow = false;
    size_t n_whole = ReadDigits(s, pos, whole, overflow);
    size_t n_frac = 0;
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      while (pos < s.size() && IsDigit(s[pos])) {
        if (scale <= std::numeric_limits<uint64_t>::max() / 10 && frac <= kMax / 10) {
          frac = frac * 10 + static_cast<uint64_t>(s[pos] - '0');
          scale *= 10;
        }
        ++pos;
        ++n_frac;
      }
    }
    if (n_whole == 0 && n_frac == 0) return Invalid(text);
    if (overflow) return Invalid(text);
    size_t unit_start = pos;
    while (pos < s.size() && s[pos] != '.' && !IsDigit(s[pos])) ++pos;
    std::string_view unit = s.substr(unit_start, pos - unit_start);
    if (unit.empty()) {
      return BadRequestError("time: missing unit in duration \"" + std::string(text) + "\"");
    }
    uint64_t per = UnitNanos(unit);
    if (per == 0) {
      return BadRequestError("time: unknown unit \"" + std::string(unit) + "\" in duration \"" +
                             std::string(text) + "\"");
    }
    if (whole > kMax / per) return Invalid(text);
    uint64_t v = whole * per;
    v += static_cast<uint64_t>(static_cast<long double>(frac) * per / scale);
    if (v > kMax || total > kMax - v) return Invalid(text);
    total += v;
  }
  int64_t micros = static_cast<int64_t>(total / kNanosPerMicro);
  return std::chrono::microseconds(negative ? -micros : micros);
}

}  // namespace allot

#include "api/machinery/go_format.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace allot::api::gofmt {
namespace {

// The shortest round-trip decimal digits of `v` and the position of the decimal point:
// v = 0.d1d2d3... * 10^dp.
struct Digits {
  bool neg = false;
  std::string digits;
  int dp = 0;
};

Digits ShortestDigits(double v, int bits) {
  char buf[64];
  std::to_chars_result r =
      bits == 32 ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v),
                                 std::chars_format::scientific)
                 : std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view text(buf, r.ptr - buf);  // "-d.dddde+XX"
  Digits d;
  if (!text.empty() && text[0] == '-') {
    d.neg = true;
    text.remove_prefix(1);
  }
  size_t e = text.find('e');
  if (e == std::string_view::npos || e + 1 >= text.size()) return d;  // not finite: not reached
  for (char c : text.substr(0, e)) {
    if (c != '.') d.digits += c;
  }
  int exp = 0;
  std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(), exp);
  d.dp = exp + 1;
  if (d.digits == "0") d.dp = 1;
  return d;
}

std::string FormatE(const Digits& d) {
  std::string out = d.neg ? "-" : "";
  out += d.digits[0];
  if (d.digits.size() > 1) {
    out += '.';
    out.append(d.digits, 1);
  }
  int exp = d.digits == "0" ? 0 : d.dp - 1;
  out += exp < 0 ? "e-" : "e+";
  std::string e = std::to_string(exp < 0 ? -exp : exp);
  if (e.size() < 2) e = "0" + e;
  return out + e;
}

std::string FormatF(const Digits& d) {
  std::string out = d.neg ? "-" : "";
  int nd = static_cast<int>(d.digits.size());
  if (d.dp <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-d.dp), '0');
    out += d.digits;
  } else if (d.dp >= nd) {
    out += d.digits;
    out.append(static_cast<size_t>(d.dp - nd), '0');
  } else {
    out.append(d.digits, 0, d.dp);
    out += '.';
    out.append(d.digits, d.dp);
  }
  return out;
}

// Go's float32(v): round to nearest float, overflowing to ±Inf. (A plain static_cast of an
// out-of-range double is undefined behaviour in C++.)
double ToFloat32(double v) {
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr double kHalfUlpAtMax = 0x1p103;  // ties round to even, i.e. up to Inf
  if (!std::isfinite(v)) return v;
  if (std::fabs(v) <= kMax) return static_cast<float>(v);
  double inf = std::numeric_limits<double>::infinity();
  if (std::fabs(v) >= kMax + kHalfUlpAtMax) return v > 0 ? inf : -inf;
  return v > 0 ? kMax : -kMax;
}

}  // namespace

std::string FormatFloat(double v, char fmt, int bits) {
  if (bits == 32) v = ToFloat32(v);
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  Digits d = ShortestDigits(v, bits);
  if (fmt == 'e') return FormatE(d);
  if (fmt == 'f') return FormatF(d);
  // 'g' with the shortest precision: Go uses the exponent form when the decimal exponent is
  // below -4 or at least 6 (eprec is fixed at 6 for shortest formatting).
  int exp = d.dp - 1;
  if (exp < -4 || exp >= 6) return FormatE(d);
  return FormatF(d);
}

std::string JsonFloat(double v) {
  double a = std::fabs(v);
  if (a != 0 && (a < 1e-6 || a >= 1e21)) {
    std::string s = FormatE(ShortestDigits(v, 64));
    size_t n = s.size();
    if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') s.erase(n - 2, 1);
    return s;
  }
  return FormatF(ShortestDigits(v, 64));
}

namespace {

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// ParseUint without sign handling.
std::optional<uint64_t> ParseUnsigned(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s[0] == '0') {
    char p = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : 0;
    if (p == 'b' || p == 'o' || p == 'x') {
      base = p == 'b' ? 2 : p == 'o' ? 8 : 16;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  uint64_t n = 0;
  for (char c : s) {
    int d = DigitValue(c);
    if (d >= base) return std::nullopt;
    if (n > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) {
      return std::nullopt;
    }
    n = n * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return n;
}

}  // namespace

std::optional<uint64_t> ParseUint(std::string_view s) { return ParseUnsigned(s); }

std::optional<int64_t> ParseInt(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  std::optional<uint64_t> u = ParseUnsigned(s);
  if (!u) return std::nullopt;
  constexpr uint64_t kMaxNeg = static_cast<uint64_t>(INT64_MAX) + 1;
  if (neg) {
    if (*u > kMaxNeg) return std::nullopt;
    return *u == kMaxNeg ? INT64_MIN : -static_cast<int64_t>(*u);
  }
  if (*u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(*u);
}

std::optional<double> ParseDecimalFloat(std::string_view s) {
  // Syntax check: [+-]? (digits (. digits*)? | . digits) ([eE] [+-]? digits)?
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++int_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  std::string copy(s);
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  if (errno == ERANGE && std::isinf(v)) return std::nullopt;
  return v;
}

}  // namespace allot::api::gofmt

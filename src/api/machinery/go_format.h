// Go's number formatting and parsing, for text that must match what Kubernetes' Go code produces
// or accepts (YAML conversion, patch error messages). Internal to src/api; not a public API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace allot::api::gofmt {

// strconv.FormatFloat(v, fmt, -1, bits): the shortest representation that round-trips, for
// fmt 'e', 'f' or 'g' and bits 32 or 64. Infinities and NaN are "+Inf", "-Inf" and "NaN".
std::string FormatFloat(double v, char fmt, int bits);

// encoding/json's float64 encoding: 'f' for 1e-6 <= |v| < 1e21 (and 0), 'e' otherwise with a
// one-digit negative exponent ("1e-7", not "1e-07"). `v` must be finite.
std::string JsonFloat(double v);

// strconv.ParseInt(s, 0, 64) and ParseUint(s, 0, 64): optional sign (ParseInt only), prefixes
// 0x/0X, 0o/0O, 0b/0B, a leading 0 for octal. Underscores are not accepted (callers strip them as
// go-yaml does). nullopt on a syntax or range error.
std::optional<int64_t> ParseInt(std::string_view s);
std::optional<uint64_t> ParseUint(std::string_view s);

// strconv.ParseFloat(s, 64) restricted to decimal syntax ([+-]digits[.digits][e[+-]digits] or
// [+-].digits...). nullopt on a syntax error or overflow; underflow yields 0 as in Go.
std::optional<double> ParseDecimalFloat(std::string_view s);

}  // namespace allot::api::gofmt

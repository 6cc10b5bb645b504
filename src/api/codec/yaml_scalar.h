// go-yaml v2's scalar resolution (resolve.go), as sigs.k8s.io/yaml sees it. Internal to
// api/codec/yaml.cc and api/codec/yaml_emit.cc; not a public API.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace allot::api::yaml_internal {

inline constexpr std::string_view kLongTagPrefix = "tag:yaml.org,2002:";

struct Scalar {
  enum class Kind { kNull, kBool, kInt, kUint, kFloat, kString, kTimestamp, kMerge };
  Kind kind = Kind::kString;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;  // may be ±Inf or NaN
};

// resolve(tag, in). `tag` is "" for an untagged plain scalar, or a long tag
// ("tag:yaml.org,2002:int"). Untagged plain scalars follow YAML 1.1 as go-yaml v2 reads it:
//   null: "", ~, null, Null, NULL
//   bool: y Y yes Yes YES true True TRUE on On ON / n N no No NO false False FALSE off Off OFF
//   int:  decimal, 0x/0o/0b prefixes, a leading 0 for octal, an optional sign, '_' ignored;
//         beyond int64 but within uint64 is kUint
//   float: [-+]digits[.digits][e[-+]digits] (with '_' ignored), .5, .inf/.Inf/.INF (signed),
//         .nan/.NaN/.NAN; out-of-range values such as 1e400 stay strings
//   timestamp: YYYY-M-D with an optional time (kTimestamp; its text is kept)
//   everything else, and any str-tagged scalar: kString.
// An explicit tag the value does not fit is a 400: "yaml: cannot decode !!str `abc` as a !!int".
Result<Scalar> Resolve(std::string_view tag, std::string_view in);

// Whether an untagged plain scalar `s` would be read as a string (go-yaml: rtag == !!str).
bool ResolvesToString(std::string_view s);

// YAML 1.1 base-60 floats ("1:20"), which go-yaml quotes on output for other parsers' sake.
bool IsBase60Float(std::string_view s);

// Go's time.Parse with the layouts go-yaml accepts for implicit timestamps.
bool IsTimestamp(std::string_view s);

}  // namespace allot::api::yaml_internal

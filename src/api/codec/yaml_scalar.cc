#include "api/codec/yaml_scalar.h"

#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include "api/machinery/go_format.h"

namespace allot::api::yaml_internal {
namespace {

constexpr std::string_view kStrTag = "str";
constexpr std::string_view kBinaryTag = "binary";

struct Known {
  std::string_view text;
  Scalar::Kind kind;
  bool b;
  double f;
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// go-yaml v2's resolveMap.
constexpr std::array<Known, 40> kKnown = {{
    {"y", Scalar::Kind::kBool, true, 0},           {"Y", Scalar::Kind::kBool, true, 0},
    {"yes", Scalar::Kind::kBool, true, 0},         {"Yes", Scalar::Kind::kBool, true, 0},
    {"YES", Scalar::Kind::kBool, true, 0},         {"true", Scalar::Kind::kBool, true, 0},
    {"True", Scalar::Kind::kBool, true, 0},        {"TRUE", Scalar::Kind::kBool, true, 0},
    {"on", Scalar::Kind::kBool, true, 0},          {"On", Scalar::Kind::kBool, true, 0},
    {"ON", Scalar::Kind::kBool, true, 0},          {"n", Scalar::Kind::kBool, false, 0},
    {"N", Scalar::Kind::kBool, false, 0},          {"no", Scalar::Kind::kBool, false, 0},
    {"No", Scalar::Kind::kBool, false, 0},         {"NO", Scalar::Kind::kBool, false, 0},
    {"false", Scalar::Kind::kBool, false, 0},      {"False", Scalar::Kind::kBool, false, 0},
    {"FALSE", Scalar::Kind::kBool, false, 0},      {"off", Scalar::Kind::kBool, false, 0},
    {"Off", Scalar::Kind::kBool, false, 0},        {"OFF", Scalar::Kind::kBool, false, 0},
    {"", Scalar::Kind::kNull, false, 0},           {"~", Scalar::Kind::kNull, false, 0},
    {"null", Scalar::Kind::kNull, false, 0},       {"Null", Scalar::Kind::kNull, false, 0},
    {"NULL", Scalar::Kind::kNull, false, 0},       {".nan", Scalar::Kind::kFloat, false, kNaN},
    {".NaN", Scalar::Kind::kFloat, false, kNaN},   {".NAN", Scalar::Kind::kFloat, false, kNaN},
    {".inf", Scalar::Kind::kFloat, false, kInf},   {".Inf", Scalar::Kind::kFloat, false, kInf},
    {".INF", Scalar::Kind::kFloat, false, kInf},   {"+.inf", Scalar::Kind::kFloat, false, kInf},
    {"+.Inf", Scalar::Kind::kFloat, false, kInf},  {"+.INF", Scalar::Kind::kFloat, false, kInf},
    {"-.inf", Scalar::Kind::kFloat, false, -kInf}, {"-.Inf", Scalar::Kind::kFloat, false, -kInf},
    {"-.INF", Scalar::Kind::kFloat, false, -kInf}, {"<<", Scalar::Kind::kMerge, false, 0},
}};

// go-yaml's resolveTable hint for the first byte.
char Hint(std::string_view in) {
  if (in.empty()) return 'N';
  char c = in[0];
  if (c == '+' || c == '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if (std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos) return 'M';
  if (c == '.') return '.';
  return 0;
}

std::string StripUnderscores(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '_') out += c;
  }
  return out;
}

Scalar Make(Scalar::Kind kind) {
  Scalar s;
  s.kind = kind;
  return s;
}

// The resolution of an untagged (or tag-checked) scalar before the tag check.
Scalar ResolveUntagged(std::string_view tag, std::string_view in) {
  char hint = Hint(in);
  if (hint == 0 || tag == kStrTag || tag == kBinaryTag) return Make(Scalar::Kind::kString);
  for (const Known& k : kKnown) {
    if (k.text == in) {
      Scalar s = Make(k.kind);
      s.b = k.b;
      s.f = k.f;
      return s;
    }
  }
  if (hint == '.') {
    if (std::optional<double> f = gofmt::ParseDecimalFloat(in)) {
      Scalar s = Make(Scalar::Kind::kFloat);
      s.f = *f;
      return s;
    }
  } else if (hint == 'D' || hint == 'S') {
    if ((tag.empty() || tag == "timestamp") && IsTimestamp(in)) {
      return Make(Scalar::Kind::kTimestamp);
    }
    std::string plain = StripUnderscores(in);
    if (std::optional<int64_t> i = gofmt::ParseInt(plain)) {
      Scalar s = Make(Scalar::Kind::kInt);
      s.i = *i;
      return s;
    }
    if (std::optional<uint64_t> u = gofmt::ParseUint(plain)) {
      Scalar s = Make(Scalar::Kind::kUint);
      s.u = *u;
      return s;
    }
    if (std::optional<double> f = gofmt::ParseDecimalFloat(plain)) {
      Scalar s = Make(Scalar::Kind::kFloat);
      s.f = *f;
      return s;
    }
  }
  return Make(Scalar::Kind::kString);
}

std::string_view ShortName(Scalar::Kind kind) {
  switch (kind) {
    case Scalar::Kind::kNull:
      return "null";
    case Scalar::Kind::kBool:
      return "bool";
    case Scalar::Kind::kInt:
    case Scalar::Kind::kUint:
      return "int";
    case Scalar::Kind::kFloat:
      return "float";
    case Scalar::Kind::kTimestamp:
      return "timestamp";
    case Scalar::Kind::kMerge:
      return "merge";
    case Scalar::Kind::kString:
      return "str";
  }
  return "str";
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads 1 or 2 digits (Go's getnum with fixed=false).
std::optional<int> Num12(std::string_view s, size_t& pos) {
  if (pos >= s.size() || !IsDigit(s[pos])) return std::nullopt;
  int n = s[pos++] - '0';
  if (pos < s.size() && IsDigit(s[pos])) n = n * 10 + (s[pos++] - '0');
  return n;
}

int DaysIn(int month, int year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// "15:4:5" with an optional fraction ("." or "," then digits).
bool ParseClock(std::string_view s, size_t& pos) {
  std::optional<int> h = Num12(s, pos);
  if (!h || *h > 23 || pos >= s.size() || s[pos++] != ':') return false;
  std::optional<int> m = Num12(s, pos);
  if (!m || *m > 59 || pos >= s.size() || s[pos++] != ':') return false;
  std::optional<int> sec = Num12(s, pos);
  if (!sec || *sec > 59) return false;
  if (pos + 1 < s.size() && (s[pos] == '.' || s[pos] == ',') && IsDigit(s[pos + 1])) {
    ++pos;
    while (pos < s.size() && IsDigit(s[pos])) ++pos;
  }
  return true;
}

// "Z07:00": Z, or ±hh:mm.
bool ParseZone(std::string_view s, size_t& pos) {
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
    return true;
  }
  if (pos + 6 > s.size() || (s[pos] != '+' && s[pos] != '-')) return false;
  std::string_view z = s.substr(pos + 1, 5);
  if (!IsDigit(z[0]) || !IsDigit(z[1]) || z[2] != ':' || !IsDigit(z[3]) || !IsDigit(z[4])) {
    return false;
  }
  int hh = (z[0] - '0') * 10 + (z[1] - '0');
  int mm = (z[3] - '0') * 10 + (z[4] - '0');
  if (hh > 24 || mm > 60) return false;
  pos += 6;
  return true;
}

}  // namespace

bool IsTimestamp(std::string_view s) {
  if (s.size() < 5) return false;
  for (int i = 0; i < 4; ++i) {
    if (!IsDigit(s[i])) return false;
  }
  if (s[4] != '-') return false;
  int year = std::stoi(std::string(s.substr(0, 4)));
  size_t pos = 5;
  std::optional<int> month = Num12(s, pos);
  if (!month || *month < 1 || *month > 12 || pos >= s.size() || s[pos++] != '-') return false;
  std::optional<int> day = Num12(s, pos);
  if (!day || *day < 1 || *day > DaysIn(*month, year)) return false;
  if (pos == s.size()) return true;  // "2006-1-2"
  char sep = s[pos++];
  if (sep == 'T' || sep == 't') {
    return ParseClock(s, pos) && ParseZone(s, pos) && pos == s.size();
  }
  if (sep == ' ') return ParseClock(s, pos) && pos == s.size();
  return false;
}

bool IsBase60Float(std::string_view s) {
  // ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i >= s.size() || !IsDigit(s[i])) return false;
  while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  int groups = 0;
  while (i < s.size() && s[i] == ':') {
    ++i;
    if (i + 1 < s.size() && s[i] >= '0' && s[i] <= '5' && IsDigit(s[i + 1])) {
      i += 2;
    } else if (i < s.size() && IsDigit(s[i])) {
      ++i;
    } else {
      return false;
    }
    ++groups;
  }
  if (groups == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  }
  return i == s.size();
}

bool ResolvesToString(std::string_view s) {
  return ResolveUntagged("", s).kind == Scalar::Kind::kString;
}

Result<Scalar> Resolve(std::string_view long_tag, std::string_view in) {
  std::string_view tag = long_tag;
  if (tag.substr(0, kLongTagPrefix.size()) == kLongTagPrefix)
    tag.remove_prefix(kLongTagPrefix.size());
  Scalar s = ResolveUntagged(tag, in);
  if (tag.empty() || tag == kStrTag || tag == kBinaryTag || tag == ShortName(s.kind)) {
    if (tag == kStrTag || tag == kBinaryTag) return Make(Scalar::Kind::kString);
    return s;
  }
  if (tag == "float" && s.kind == Scalar::Kind::kInt) {
    s.kind = Scalar::Kind::kFloat;
    s.f = static_cast<double>(s.i);
    return s;
  }
  return BadRequestError("yaml: cannot decode !!" + std::string(ShortName(s.kind)) + " `" +
                         std::string(in) + "` as a !!" + std::string(tag));
}

}  // namespace allot::api::yaml_internal

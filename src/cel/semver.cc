#include "cel/semver.h"

#include <algorithm>
#include <charconv>

namespace allot::cel {

namespace {

bool AllDigits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool AllAlnumOrDash(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  });
}

bool LeadingZero(std::string_view s) { return s.size() > 1 && s[0] == '0'; }

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

Status SemverError(std::string msg) { return Status(StatusCode::kInvalid, std::move(msg)); }

Result<uint64_t> ParseNumber(std::string_view s, std::string_view what, std::string_view What) {
  if (!AllDigits(s)) {
    return SemverError("Invalid character(s) found in " + std::string(what) + " number " +
                       Quoted(s));
  }
  if (LeadingZero(s)) {
    return SemverError(std::string(What) + " number must not contain leading zeroes " + Quoted(s));
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    return SemverError("strconv.ParseUint: parsing " + Quoted(s) +
                       (s.empty() ? ": invalid syntax" : ": value out of range"));
  }
  return v;
}

std::vector<std::string> SplitDots(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    out.emplace_back(s.substr(start, dot == std::string_view::npos ? s.npos : dot - start));
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

Result<Semver> ParseStrict(std::string_view s) {
  if (s.empty()) return SemverError("Version string empty");
  size_t d1 = s.find('.');
  size_t d2 = d1 == std::string_view::npos ? d1 : s.find('.', d1 + 1);
  if (d2 == std::string_view::npos) return SemverError("No Major.Minor.Patch elements found");
  Semver v;
  ALLOT_ASSIGN_OR_RETURN(v.major, ParseNumber(s.substr(0, d1), "major", "Major"));
  ALLOT_ASSIGN_OR_RETURN(v.minor, ParseNumber(s.substr(d1 + 1, d2 - d1 - 1), "minor", "Minor"));
  std::string_view patch = s.substr(d2 + 1);
  if (size_t plus = patch.find('+'); plus != std::string_view::npos) {
    v.build = SplitDots(patch.substr(plus + 1));
    patch = patch.substr(0, plus);
  }
  if (size_t dash = patch.find('-'); dash != std::string_view::npos) {
    v.pre = SplitDots(patch.substr(dash + 1));
    patch = patch.substr(0, dash);
  }
  ALLOT_ASSIGN_OR_RETURN(v.patch, ParseNumber(patch, "patch", "Patch"));
  for (const std::string& p : v.pre) {
    if (p.empty()) return SemverError("Prerelease is empty");
    if (AllDigits(p)) {
      if (LeadingZero(p)) {
        return SemverError("Numeric PreRelease version must not contain leading zeroes " +
                           Quoted(p));
      }
    } else if (!AllAlnumOrDash(p)) {
      return SemverError("Invalid character(s) found in prerelease " + Quoted(p));
    }
  }
  for (const std::string& b : v.build) {
    if (b.empty()) return SemverError("Build meta data is empty");
    if (!AllAlnumOrDash(b)) {
      return SemverError("Invalid character(s) found in build meta data " + Quoted(b));
    }
  }
  return v;
}

// normalizeAndParse: strip "v", drop leading zeros of the first three dot-separated parts, and
// fill in missing minor/patch numbers.
Result<Semver> ParseNormalized(std::string_view s) {
  if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
  std::vector<std::string> parts;
  size_t start = 0;
  while (parts.size() < 2) {
    size_t dot = s.find('.', start);
    if (dot == std::string_view::npos) break;
    parts.emplace_back(s.substr(start, dot - start));
    start = dot + 1;
  }
  parts.emplace_back(s.substr(start));
  for (std::string& p : parts) {
    if (p.size() <= 1) continue;
    size_t nz = p.find_first_not_of('0');
    p = nz == std::string::npos ? "" : p.substr(nz);
    if (p.empty() || !(p[0] >= '0' && p[0] <= '9')) p = "0" + p;
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return SemverError("short version cannot contain PreRelease/Build meta data");
    }
    while (parts.size() < 3) parts.push_back("0");
  }
  return ParseStrict(parts[0] + "." + parts[1] + "." + parts[2]);
}

int ComparePre(const std::string& a, const std::string& b) {
  bool an = AllDigits(a), bn = AllDigits(b);
  if (an && bn) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (an) return -1;
  if (bn) return 1;
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int Cmp(uint64_t a, uint64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

}  // namespace

Result<Semver> ParseSemver(std::string_view text, bool normalize) {
  return normalize ? ParseNormalized(text) : ParseStrict(text);
}

int CompareSemver(const Semver& a, const Semver& b) {
  if (int c = Cmp(a.major, b.major)) return c;
  if (int c = Cmp(a.minor, b.minor)) return c;
  if (int c = Cmp(a.patch, b.patch)) return c;
  if (a.pre.empty() && b.pre.empty()) return 0;
  if (a.pre.empty()) return 1;
  if (b.pre.empty()) return -1;
  size_t i = 0;
  for (; i < a.pre.size() && i < b.pre.size(); ++i) {
    if (int c = ComparePre(a.pre[i], b.pre[i])) return c;
  }
  if (i == a.pre.size() && i == b.pre.size()) return 0;
  return i == a.pre.size() ? -1 : 1;
}

}  // namespace allot::cel

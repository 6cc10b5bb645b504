#include "api/machinery/validation_util.h"

#include <arpa/inet.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"

namespace allot::api::validation_util {

namespace {

constexpr size_t kCSIDriverNameMaxLength = 63;

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// (0|[1-9]\d*)
size_t MatchNumericIdentifier(std::string_view s, size_t i) {
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
    return std::string_view::npos;
  if (s[i] == '0') return i + 1;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

bool IsIdentChar(char c) { return IsAlnum(c) || c == '-'; }

// Pre-release identifier: (0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*).
bool ValidPreRelease(std::string_view id) {
  if (id.empty() || !std::all_of(id.begin(), id.end(), IsIdentChar)) return false;
  bool numeric = std::all_of(id.begin(), id.end(),
                             [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  return !numeric || id == "0" || id.front() != '0';
}

bool ValidDotted(std::string_view s, bool pre_release) {
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view id = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    bool ok = pre_release ? ValidPreRelease(id)
                          : !id.empty() && std::all_of(id.begin(), id.end(), IsIdentChar);
    if (!ok) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

bool IsSemver(std::string_view s) {
  size_t i = 0;
  for (int part = 0; part < 3; ++part) {
    i = MatchNumericIdentifier(s, i);
    if (i == std::string_view::npos) return false;
    if (part < 2) {
      if (i >= s.size() || s[i] != '.') return false;
      ++i;
    }
  }
  std::string_view rest = s.substr(i);
  size_t plus = rest.find('+');
  std::string_view pre = rest.substr(0, plus);
  if (!pre.empty()) {
    if (pre.front() != '-' || !ValidDotted(pre.substr(1), true)) return false;
  }
  if (plus != std::string_view::npos && !ValidDotted(rest.substr(plus + 1), false)) return false;
  return true;
}

bool IsExtendedResourceName(std::string_view value) {
  // Native resources have no domain or contain "kubernetes.io/"; "requests." is the quota prefix.
  if (value.find('/') == std::string_view::npos) return false;
  if (value.find("kubernetes.io/") != std::string_view::npos) return false;
  if (value.substr(0, 9) == "requests.") return false;
  return IsQualifiedName("requests." + std::string(value));
}

void InvalidRaw(FieldErrors& errs, const Path& p, std::string_view raw, std::string_view detail) {
  errs.Invalid(p, raw, detail);
}

bool IsOneOf(std::string_view value, const std::vector<std::string_view>& supported) {
  for (std::string_view s : supported) {
    if (s == value) return true;
  }
  return false;
}

void ValidateDriverName(std::string_view value, const Path& p, FieldErrors& errs) {
  if (value.empty()) errs.Required(p);
  if (value.size() > kCSIDriverNameMaxLength) errs.TooLong(p, kCSIDriverNameMaxLength);
  // The check is case-insensitive, the error shows the value as given.
  for (const std::string& m : DnsSubdomainErrors(Lower(value))) errs.Invalid(p, value, m);
}

void ValidateNodeName(std::string_view value, const Path& p, FieldErrors& errs) {
  ValidateDnsSubdomain(value, p, errs);
}

void ValidateUID(std::string_view value, const Path& p, FieldErrors& errs) {
  // google/uuid.Validate accepts the 36-character form and the bare 32 hex digits.
  if (value.size() == 36) {
    for (size_t i = 0; i < value.size(); ++i) {
      bool hyphen_slot = i == 8 || i == 13 || i == 18 || i == 23;
      if (hyphen_slot ? value[i] != '-' : !IsHex(value[i])) {
        errs.Invalid(p, value, "error validating uid: invalid UUID format");
        return;
      }
    }
  } else if (value.size() != 32 || !std::all_of(value.begin(), value.end(), IsHex)) {
    errs.Invalid(p, value,
                 "error validating uid: invalid UUID length: " + std::to_string(value.size()));
    return;
  }
  if (value.size() != 36 || Lower(value) != value) {
    errs.Invalid(p, value,
                 "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` "
                 "with lowercase hexadecimal characters");
  }
}

void ValidateInterfaceAddress(std::string_view value, const Path& p, FieldErrors& errs) {
  size_t slash = value.find('/');
  std::string ip(value.substr(0, slash));
  std::string prefix = slash == std::string_view::npos ? "" : std::string(value.substr(slash + 1));
  unsigned char buf[16];
  bool v4 = inet_pton(AF_INET, ip.c_str(), buf) == 1;
  bool v6 = !v4 && inet_pton(AF_INET6, ip.c_str(), buf) == 1;
  int max_bits = v4 ? 32 : 128;
  bool prefix_ok =
      !prefix.empty() && prefix.size() <= 3 &&
      std::all_of(prefix.begin(), prefix.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
      std::stoi(prefix) <= max_bits;
  if ((!v4 && !v6) || !prefix_ok) {
    errs.Invalid(p, value,
                 "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)");
    return;
  }
  char text[INET6_ADDRSTRLEN];
  inet_ntop(v4 ? AF_INET : AF_INET6, buf, text, sizeof text);
  std::string canonical = std::string(text) + "/" + std::to_string(std::stoi(prefix));
  if (canonical != value) {
    errs.Invalid(p, value, "must be in canonical form (" + Quote(canonical) + ")");
  }
}

namespace {

// ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$
bool ValidConditionReason(std::string_view r) {
  if (r.empty() || !std::isalpha(static_cast<unsigned char>(r.front()))) return false;
  char last = r.back();
  if (!(IsAlnum(last) || last == '_')) return false;
  return std::all_of(r.begin(), r.end(),
                     [](char c) { return IsAlnum(c) || c == '_' || c == ',' || c == ':'; });
}

void ValidateCondition(const Condition& c, const Path& p, FieldErrors& errs) {
  ::allot::api::ValidateLabelName(c.type, p.Child("type"), errs);
  if (c.status != "True" && c.status != "False" && c.status != "Unknown") {
    errs.NotSupported(p.Child("status"), c.status, {"False", "True", "Unknown"});
  }
  if (c.observedGeneration < 0) {
    errs.InvalidInt(p.Child("observedGeneration"), c.observedGeneration,
                    "must be greater than or equal to zero");
  }
  if (!c.lastTransitionTime || c.lastTransitionTime->unix_micros == 0) {
    errs.Required(p.Child("lastTransitionTime"), "must be set");
  }
  if (c.reason.empty()) {
    errs.Required(p.Child("reason"), "must be set");
  } else {
    if (!ValidConditionReason(c.reason)) {
      errs.Invalid(p.Child("reason"), c.reason,
                   "a condition reason must start with alphabetic character, optionally followed "
                   "by a string of alphanumeric characters or '_,:', and must end with an "
                   "alphanumeric character or '_'");
    }
    if (c.reason.size() > 1024) errs.TooLong(p.Child("reason"), 1024);
  }
  if (c.message.size() > 32 * 1024) errs.TooLong(p.Child("message"), 32 * 1024);
}

}  // namespace

void ValidateConditions(const std::vector<Condition>& conditions, const Path& p,
                        FieldErrors& errs) {
  std::set<std::string> seen;
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (!seen.insert(conditions[i].type).second) {
      errs.Duplicate(p.Index(i).Child("type"), conditions[i].type);
    }
    ValidateCondition(conditions[i], p.Index(i), errs);
  }
}

void ValidateTemplateObjectMeta(const ObjectMeta& meta, const Path& p, FieldErrors& errs) {
  ::allot::api::ValidateAnnotations(meta.annotations, p.Child("annotations"), errs);
  ::allot::api::ValidateLabels(meta.labels, p.Child("labels"), errs);
  constexpr std::string_view kDetail = "cannot be set for a template";
  auto forbid = [&](bool set, std::string_view field) {
    if (set) errs.Forbidden(p.Child(field), kDetail);
  };
  forbid(!meta.name.empty(), "name");
  forbid(!meta.generateName.empty(), "generateName");
  forbid(!meta.namespace_.empty(), "namespace");
  forbid(!meta.rare->selfLink.empty(), "selfLink");
  forbid(!meta.uid.empty(), "uid");
  forbid(!meta.resourceVersion.empty(), "resourceVersion");
  forbid(meta.generation != 0, "generation");
  forbid(meta.creationTimestamp.has_value(), "creationTimestamp");
  forbid(meta.rare->deletionTimestamp.has_value(), "deletionTimestamp");
  forbid(meta.rare->deletionGracePeriodSeconds.has_value(), "deletionGracePeriodSeconds");
  forbid(!meta.ownerReferences.empty(), "ownerReferences");
  forbid(!meta.finalizers.empty(), "finalizers");
  forbid(!meta.rare->managedFields.empty(), "managedFields");
}

void ValidateRawObject(const RawJson& raw, const Path& p, size_t max_bytes, FieldErrors& errs) {
  if (raw.json.empty()) {
    errs.Required(p);
    return;
  }
  if (raw.json.size() > max_bytes) {
    errs.TooLong(p, static_cast<int64_t>(max_bytes));
    return;
  }
  rapidjson::Document doc;
  doc.Parse(raw.json.data(), raw.json.size());
  if (doc.HasParseError()) {
    errs.Invalid(p, "<value omitted>", "error parsing data as JSON");
  } else if (doc.IsNull()) {
    errs.Required(p);
  } else if (!doc.IsObject()) {
    errs.Invalid(p, "<value omitted>", "must be a valid JSON object");
  }
}

}  // namespace allot::api::validation_util

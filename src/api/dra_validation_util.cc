#include "api/dra_validation_util.h"

#include <arpa/inet.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>

namespace allot::api::dra_util {

namespace {

constexpr size_t kDNS1123LabelMaxLength = 63;
constexpr size_t kDNS1123SubdomainMaxLength = 253;
constexpr size_t kQualifiedNameMaxLength = 63;
constexpr size_t kLabelValueMaxLength = 63;
constexpr size_t kCSIDriverNameMaxLength = 63;
constexpr size_t kTotalAnnotationSizeLimit = 256 * 1024;

std::string MaxLenError(size_t n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

// validation.RegexError: "<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')".
std::string RegexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  out += " (e.g. ";
  bool first = true;
  for (std::string_view e : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'" + std::string(e) + "', ";
  }
  out += "regex used for validation is '" + std::string(fmt) + "')";
  return out;
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool MatchesDNSLabel(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

bool MatchesDNSSubdomain(std::string_view s) {
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (!MatchesDNSLabel(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

constexpr std::string_view kDNS1123LabelErr =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDNS1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDNS1123SubdomainErr =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDNS1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kQualifiedNameErr =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelValueErr =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kCIdentifierErr =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_'";
constexpr std::string_view kCIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";

void InvalidEach(const std::vector<std::string>& msgs, std::string_view value, const Path& p,
                 FieldErrors& errs) {
  for (const std::string& m : msgs) errs.Invalid(p, value, m);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<std::string> IsDNS1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123SubdomainMaxLength) errs.push_back(MaxLenError(kDNS1123SubdomainMaxLength));
  if (!MatchesDNSSubdomain(value)) {
    errs.push_back(RegexError(kDNS1123SubdomainErr, kDNS1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsDNS1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123LabelMaxLength) errs.push_back(MaxLenError(kDNS1123LabelMaxLength));
  if (!MatchesDNSLabel(value)) {
    errs.push_back(RegexError(kDNS1123LabelErr, kDNS1123LabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsCIdentifier(std::string_view value) {
  bool ok = !value.empty() &&
            (std::isalpha(static_cast<unsigned char>(value.front())) || value.front() == '_') &&
            std::all_of(value.begin(), value.end(), [](char c) { return IsAlnum(c) || c == '_'; });
  if (ok) return {};
  return {RegexError(kCIdentifierErr, kCIdentifierFmt, {"my_name", "MY_NAME", "MyName"})};
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a qualified name " +
                     RegexError(kQualifiedNameErr, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& m : IsDNS1123Subdomain(prefix)) errs.push_back("prefix part " + m);
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + MaxLenError(kQualifiedNameMaxLength));
  }
  if (!MatchesQualifiedNamePart(name)) {
    errs.push_back("name part " +
                   RegexError(kQualifiedNameErr, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(MaxLenError(kLabelValueMaxLength));
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    errs.push_back(RegexError(kLabelValueErr, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

namespace {

// (0|[1-9]\d*)
size_t MatchNumericIdentifier(std::string_view s, size_t i) {
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return std::string_view::npos;
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
  return IsQualifiedName("requests." + std::string(value)).empty();
}

void InvalidRaw(FieldErrors& errs, const Path& p, std::string_view raw, std::string_view detail) {
  errs.Invalid(p, raw, detail);
}

void ValidateDNS1123Subdomain(std::string_view value, const Path& p, FieldErrors& errs) {
  InvalidEach(IsDNS1123Subdomain(value), value, p, errs);
}

void ValidateDNS1123Label(std::string_view value, const Path& p, FieldErrors& errs) {
  InvalidEach(IsDNS1123Label(value), value, p, errs);
}

void ValidateDriverName(std::string_view value, const Path& p, FieldErrors& errs) {
  if (value.empty()) errs.Required(p);
  if (value.size() > kCSIDriverNameMaxLength) errs.TooLong(p, kCSIDriverNameMaxLength);
  std::string lower = Lower(value);
  InvalidEach(IsDNS1123Subdomain(lower), lower, p, errs);
}

void ValidateLabelName(std::string_view value, const Path& p, FieldErrors& errs) {
  InvalidEach(IsQualifiedName(value), value, p, errs);
}

void ValidateLabelValue(std::string_view value, const Path& p, FieldErrors& errs) {
  InvalidEach(IsValidLabelValue(value), value, p, errs);
}

void ValidateNodeName(std::string_view value, const Path& p, FieldErrors& errs) {
  ValidateDNS1123Subdomain(value, p, errs);
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
  bool prefix_ok = !prefix.empty() && prefix.size() <= 3 &&
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

void ValidateLabels(const StringMap& labels, const Path& p, FieldErrors& errs) {
  for (const auto& [key, value] : labels) {
    ValidateLabelName(key, p, errs);
    InvalidEach(IsValidLabelValue(value), value, p, errs);
  }
}

void ValidateAnnotations(const StringMap& annotations, const Path& p, FieldErrors& errs) {
  size_t total = 0;
  for (const auto& [key, value] : annotations) {
    InvalidEach(IsQualifiedName(Lower(key)), key, p, errs);
    total += key.size() + value.size();
  }
  if (total > kTotalAnnotationSizeLimit) errs.TooLong(p, kTotalAnnotationSizeLimit);
}

namespace {

void ValidateNodeSelectorRequirement(const NodeSelectorRequirement& rq, const Path& p,
                                     FieldErrors& errs) {
  const std::string& op = rq.operator_;
  if (op == "In" || op == "NotIn") {
    if (rq.values.empty()) {
      errs.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'");
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!rq.values.empty()) {
      errs.Forbidden(p.Child("values"),
                     "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    }
  } else if (op == "Gt" || op == "Lt") {
    if (rq.values.size() != 1) {
      errs.Required(p.Child("values"),
                    "must be specified single value when `operator` is 'Lt' or 'Gt'");
    }
  } else {
    errs.Invalid(p.Child("operator"), op, "not a valid selector operator");
  }
  ValidateLabelName(rq.key, p.Child("key"), errs);
  for (size_t i = 0; i < rq.values.size(); ++i) {
    ValidateLabelValue(rq.values[i], p.Child("values").Index(i), errs);
  }
}

void ValidateNodeFieldSelectorRequirement(const NodeSelectorRequirement& rq, const Path& p,
                                          FieldErrors& errs) {
  if (rq.operator_ == "In" || rq.operator_ == "NotIn") {
    if (rq.values.size() != 1) {
      errs.Required(p.Child("values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field "
                    "selector");
    }
  } else {
    errs.Invalid(p.Child("operator"), rq.operator_, "not a valid selector operator");
  }
  if (rq.key != "metadata.name") {
    errs.Invalid(p.Child("key"), rq.key, "not a valid field selector key");
    return;
  }
  for (size_t i = 0; i < rq.values.size(); ++i) {
    ValidateNodeName(rq.values[i], p.Child("values").Index(i), errs);
  }
}

}  // namespace

void ValidateNodeSelector(const NodeSelector& selector, const Path& p, FieldErrors& errs) {
  Path terms = p.Child("nodeSelectorTerms");
  if (selector.nodeSelectorTerms.empty()) {
    errs.Required(terms, "must have at least one node selector term");
    return;
  }
  for (size_t i = 0; i < selector.nodeSelectorTerms.size(); ++i) {
    const NodeSelectorTerm& term = selector.nodeSelectorTerms[i];
    Path tp = terms.Index(i);
    for (size_t j = 0; j < term.matchExpressions.size(); ++j) {
      ValidateNodeSelectorRequirement(term.matchExpressions[j], tp.Child("matchExpressions").Index(j),
                                      errs);
    }
    for (size_t j = 0; j < term.matchFields.size(); ++j) {
      ValidateNodeFieldSelectorRequirement(term.matchFields[j], tp.Child("matchFields").Index(j),
                                           errs);
    }
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
  ValidateLabelName(c.type, p.Child("type"), errs);
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

void ValidateObjectMetaBasic(const ObjectMeta& meta, bool namespaced, FieldErrors& errs) {
  Path p("metadata");
  if (!meta.generateName.empty()) {
    // Prefixes are checked as if the generated suffix were appended.
    std::string masked = meta.generateName;
    if (masked.back() == '-') masked.back() = 'a';
    InvalidEach(IsDNS1123Subdomain(masked), meta.generateName, p.Child("generateName"), errs);
  }
  if (meta.name.empty()) {
    errs.Required(p.Child("name"), "name or generateName is required");
  } else {
    ValidateDNS1123Subdomain(meta.name, p.Child("name"), errs);
  }
  if (namespaced) {
    if (meta.namespace_.empty()) {
      errs.Required(p.Child("namespace"));
    } else {
      ValidateDNS1123Label(meta.namespace_, p.Child("namespace"), errs);
    }
  } else if (!meta.namespace_.empty()) {
    errs.Forbidden(p.Child("namespace"), "not allowed on this type");
  }
  if (meta.generation < 0) {
    errs.InvalidInt(p.Child("generation"), meta.generation, "must be greater than or equal to 0");
  }
  ValidateLabels(meta.labels, p.Child("labels"), errs);
  ValidateAnnotations(meta.annotations, p.Child("annotations"), errs);
}

void ValidateTemplateObjectMeta(const ObjectMeta& meta, const Path& p, FieldErrors& errs) {
  ValidateAnnotations(meta.annotations, p.Child("annotations"), errs);
  ValidateLabels(meta.labels, p.Child("labels"), errs);
  constexpr std::string_view kDetail = "cannot be set for a template";
  auto forbid = [&](bool set, std::string_view field) {
    if (set) errs.Forbidden(p.Child(field), kDetail);
  };
  forbid(!meta.name.empty(), "name");
  forbid(!meta.generateName.empty(), "generateName");
  forbid(!meta.namespace_.empty(), "namespace");
  forbid(!meta.selfLink.empty(), "selfLink");
  forbid(!meta.uid.empty(), "uid");
  forbid(!meta.resourceVersion.empty(), "resourceVersion");
  forbid(meta.generation != 0, "generation");
  forbid(meta.creationTimestamp.has_value(), "creationTimestamp");
  forbid(meta.deletionTimestamp.has_value(), "deletionTimestamp");
  forbid(meta.deletionGracePeriodSeconds.has_value(), "deletionGracePeriodSeconds");
  forbid(!meta.ownerReferences.empty(), "ownerReferences");
  forbid(!meta.finalizers.empty(), "finalizers");
  forbid(!meta.managedFields.empty(), "managedFields");
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

}  // namespace allot::api::dra_util

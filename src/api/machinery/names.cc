#include "api/machinery/names.h"

#include <arpa/inet.h>

#include <string>
#include <string_view>
#include <vector>

namespace allot::api {
namespace {

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kCIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";
constexpr std::string_view kCIdentifierErrMsg =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_'";
constexpr std::string_view kLabelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
bool MatchesDnsLabelRegex(std::string_view v) {
  if (v.empty() || !IsLowerAlnum(v.front()) || !IsLowerAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// ^<label>(\.<label>)*$
bool MatchesDnsSubdomainRegex(std::string_view v) {
  size_t start = 0;
  while (true) {
    size_t dot = v.find('.', start);
    std::string_view label =
        v.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!MatchesDnsLabelRegex(label)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$
bool MatchesLabelKeyNameRegex(std::string_view v) {
  if (v.empty() || !IsAlnum(v.front()) || !IsAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

Status InvalidFromErrors(const std::vector<std::string>& errs) {
  if (errs.empty()) return Status::Ok();
  std::string message;
  for (const std::string& e : errs) {
    if (!message.empty()) message += "; ";
    message += e;
  }
  return Status(StatusCode::kInvalid, std::move(message));
}

}  // namespace

std::string MaxLenError(size_t length) {
  return "must be no more than " + std::to_string(length) + " bytes";
}

std::string EmptyError() { return "must be non-empty"; }

std::string RegexError(std::string_view msg, std::string_view regex,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    out += " (regex used for validation is '";
  } else {
    out += " (e.g. ";
    bool first = true;
    for (std::string_view ex : examples) {
      if (!first) out += " or ";
      first = false;
      out += '\'';
      out += ex;
      out += "', ";
    }
    out += "regex used for validation is '";
  }
  out += regex;
  out += "')";
  return out;
}

bool IsDnsSubdomain(std::string_view value) {
  return value.size() <= kDnsSubdomainMaxLength && MatchesDnsSubdomainRegex(value);
}

std::vector<std::string> DnsSubdomainErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDnsSubdomainMaxLength) errs.push_back(MaxLenError(kDnsSubdomainMaxLength));
  if (!MatchesDnsSubdomainRegex(value)) {
    errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

bool IsDnsLabel(std::string_view value) {
  return value.size() <= kDnsLabelMaxLength && MatchesDnsLabelRegex(value);
}

std::vector<std::string> DnsLabelErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDnsLabelMaxLength) errs.push_back(MaxLenError(kDnsLabelMaxLength));
  if (!MatchesDnsLabelRegex(value)) {
    if (MatchesDnsSubdomainRegex(value)) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDns1123LabelErrMsg, kDns1123LabelFmt, {"my-name", "123-abc"}));
    }
  }
  return errs;
}

bool IsCIdentifier(std::string_view value) {
  if (value.empty()) return false;
  char c0 = value.front();
  if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_')) return false;
  for (char c : value) {
    if (!IsAlnum(c) && c != '_') return false;
  }
  return true;
}

std::vector<std::string> CIdentifierErrors(std::string_view value) {
  if (IsCIdentifier(value)) return {};
  return {RegexError(kCIdentifierErrMsg, kCIdentifierFmt, {"my_name", "MY_NAME", "MyName"})};
}

std::vector<std::string> QualifiedNameErrors(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  const size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a valid label key " +
                     RegexError(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}) +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part " + EmptyError());
    } else {
      for (std::string& msg : DnsSubdomainErrors(prefix)) errs.push_back("prefix part " + msg);
    }
  }
  if (name.empty()) {
    errs.push_back("name part " + EmptyError());
  } else if (name.size() > kLabelKeyNameMaxLength) {
    errs.push_back("name part " + MaxLenError(kLabelKeyNameMaxLength));
  }
  if (!MatchesLabelKeyNameRegex(name)) {
    errs.push_back("name part " +
                   RegexError(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

bool IsQualifiedName(std::string_view value) { return QualifiedNameErrors(value).empty(); }

bool IsLabelValue(std::string_view value) {
  return value.size() <= kLabelValueMaxLength && (value.empty() || MatchesLabelKeyNameRegex(value));
}

std::vector<std::string> LabelValueErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(MaxLenError(kLabelValueMaxLength));
  if (!value.empty() && !MatchesLabelKeyNameRegex(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

Status ValidateLabelKey(std::string_view key) {
  return InvalidFromErrors(QualifiedNameErrors(key));
}

Status ValidateLabelValue(std::string_view value) {
  return InvalidFromErrors(LabelValueErrors(value));
}

bool IsIpAddress(std::string_view text) {
  const std::string s(text);
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

std::string InclusiveRangeError(int64_t lo, int64_t hi) {
  return "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", inclusive";
}

// validation.IsValidPortName (IANA_SVC_NAME).
std::vector<std::string> PortNameErrors(std::string_view port) {
  std::vector<std::string> errs;
  if (port.size() < 1 || port.size() > 15) errs.push_back("must be no more than 15 characters");
  bool ok_chars = true;
  bool has_letter = false;
  for (char c : port) {
    bool lower = c >= 'a' && c <= 'z';
    has_letter = has_letter || lower;
    if (!lower && !(c >= '0' && c <= '9') && c != '-') ok_chars = false;
  }
  if (!ok_chars) {
    errs.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (port.find("--") != std::string_view::npos) {
    errs.push_back("must not contain consecutive hyphens");
  }
  if (!has_letter) errs.push_back("must contain at least one letter (a-z)");
  if (!port.empty() && (port.front() == '-' || port.back() == '-')) {
    errs.push_back("must not begin or end with a hyphen");
  }
  return errs;
}

}  // namespace allot::api

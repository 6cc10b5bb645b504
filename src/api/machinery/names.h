// Name and label syntax checks with Kubernetes' error messages
// (k8s.io/apimachinery/pkg/api/validate/content, formerly pkg/util/validation).
//
// The *Errors functions return the list of messages Kubernetes' Is* functions return (empty when
// valid), e.g. DnsSubdomainErrors("Foo") is
//   {"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or
//    '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used
//    for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}.
// Callers put them into field errors themselves ("metadata.name: Invalid value: ...: <msg>").
// The checks are hand-written equivalents of the regular expressions named in the messages.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace allot::api {

inline constexpr size_t kDnsSubdomainMaxLength = 253;
inline constexpr size_t kDnsLabelMaxLength = 63;
inline constexpr size_t kLabelKeyNameMaxLength = 63;
inline constexpr size_t kLabelValueMaxLength = 63;

// "must be no more than 63 bytes"
std::string MaxLenError(size_t length);
// "must be non-empty"
std::string EmptyError();
// msg + " (e.g. 'a',  or 'b', regex used for validation is '<regex>')"; without examples
// msg + " (regex used for validation is '<regex>')". The double space is Kubernetes'.
std::string RegexError(std::string_view msg, std::string_view regex,
                       std::initializer_list<std::string_view> examples = {});

// RFC 1123 subdomain: at most 253 bytes of [a-z0-9]([-a-z0-9]*[a-z0-9])? labels joined by '.'.
// Most object names (metadata.name) use this.
bool IsDnsSubdomain(std::string_view value);
std::vector<std::string> DnsSubdomainErrors(std::string_view value);

// RFC 1123 label: at most 63 bytes of [a-z0-9]([-a-z0-9]*[a-z0-9])?. Namespace names use this.
// A valid subdomain with dots reports "must not contain dots".
bool IsDnsLabel(std::string_view value);
std::vector<std::string> DnsLabelErrors(std::string_view value);

// C identifier: [A-Za-z_][A-Za-z0-9_]* (no length limit).
bool IsCIdentifier(std::string_view value);
std::vector<std::string> CIdentifierErrors(std::string_view value);

// Qualified name / label key: [prefix '/'] name, where prefix is a DNS subdomain and name is at
// most 63 bytes of ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]. Messages are prefixed with
// "prefix part " / "name part " as Kubernetes does.
bool IsQualifiedName(std::string_view value);
std::vector<std::string> QualifiedNameErrors(std::string_view value);

// Label value: empty, or at most 63 bytes of ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
bool IsLabelValue(std::string_view value);
std::vector<std::string> LabelValueErrors(std::string_view value);

// An IPv4 or IPv6 address in any form inet_pton accepts.
bool IsIpAddress(std::string_view text);

// "must be between <lo> and <hi>, inclusive"
std::string InclusiveRangeError(int64_t lo, int64_t hi);

// validation.IsValidPortName (an IANA service name: at most 15 of [a-z0-9-], a letter, no "--",
// no leading or trailing '-'); empty when valid.
std::vector<std::string> PortNameErrors(std::string_view port);

// OK, or kInvalid whose message is the Kubernetes messages joined with "; " (the detail text
// Kubernetes puts after `Invalid value: "<key>": `). No field path is included.
Status ValidateLabelKey(std::string_view key);
Status ValidateLabelValue(std::string_view value);

}  // namespace allot::api

// Field-format checks used by the resource.k8s.io, PodSchedulingContext and Reservation
// validation (api/dra_validation.h, api/scheduling.h), with Kubernetes' exact messages.
//
// TODO(dra): the name checks and ValidateObjectMetaBasic duplicate what api/names.h and
// api/meta_validation.h (written by the core agent) will offer; switch to those once they land.
// NodeSelector and Condition checks could likewise move to a shared core validation file.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta.h"
#include "api/validation.h"

namespace allot::api::dra_util {

// k8s.io/apimachinery/pkg/util/validation: each returns the problems found (empty = valid).
std::vector<std::string> IsDNS1123Subdomain(std::string_view value);
std::vector<std::string> IsDNS1123Label(std::string_view value);
std::vector<std::string> IsCIdentifier(std::string_view value);
std::vector<std::string> IsQualifiedName(std::string_view value);
std::vector<std::string> IsValidLabelValue(std::string_view value);
// Semantic Versioning 2.0.0 (the regular expression used by resource.k8s.io validation).
bool IsSemver(std::string_view value);
// v1helper.IsExtendedResourceName: "domain/name", outside kubernetes.io, usable in quota names.
bool IsExtendedResourceName(std::string_view value);

// Field.Invalid with a value printed without quotes (Go prints bools, structs and Stringers
// that way). FieldErrors has no raw-value entry point yet, so this currently quotes the value.
// TODO(dra): use FieldErrors::InvalidRaw once api/validation.h offers it.
void InvalidRaw(FieldErrors& errs, const Path& p, std::string_view raw, std::string_view detail);

// One Invalid error per problem, as corevalidation.ValidateDNS1123Subdomain / Label do.
void ValidateDNS1123Subdomain(std::string_view value, const Path& p, FieldErrors& errs);
void ValidateDNS1123Label(std::string_view value, const Path& p, FieldErrors& errs);
// corevalidation.ValidateCSIDriverName: required, <= 63 bytes, DNS subdomain (case-insensitive).
void ValidateDriverName(std::string_view value, const Path& p, FieldErrors& errs);
// metav1validation.ValidateLabelName (a qualified name; also condition types).
void ValidateLabelName(std::string_view value, const Path& p, FieldErrors& errs);
void ValidateLabelValue(std::string_view value, const Path& p, FieldErrors& errs);
// Node names are DNS subdomains.
void ValidateNodeName(std::string_view value, const Path& p, FieldErrors& errs);
// A RFC 4122 UID in normalized (lowercase) form.
void ValidateUID(std::string_view value, const Path& p, FieldErrors& errs);
// An address in CIDR form ("10.9.8.7/24", "2001:db8::5/64").
void ValidateInterfaceAddress(std::string_view value, const Path& p, FieldErrors& errs);

void ValidateLabels(const StringMap& labels, const Path& p, FieldErrors& errs);
void ValidateAnnotations(const StringMap& annotations, const Path& p, FieldErrors& errs);

// corevalidation.ValidateNodeSelector (allowInvalidLabelValue = false).
void ValidateNodeSelector(const NodeSelector& selector, const Path& p, FieldErrors& errs);
// metav1validation.ValidateConditions.
void ValidateConditions(const std::vector<Condition>& conditions, const Path& p,
                        FieldErrors& errs);

// The subset of corevalidation.ValidateObjectMeta the resource kinds need: name (or
// generateName) as a DNS subdomain, namespace presence by scope, labels and annotations.
void ValidateObjectMetaBasic(const ObjectMeta& meta, bool namespaced, FieldErrors& errs);
// corevalidation.ValidateTemplateObjectMeta: only labels and annotations may be set.
void ValidateTemplateObjectMeta(const ObjectMeta& meta, const Path& p, FieldErrors& errs);

// A RawExtension that must hold a JSON object of at most `max_bytes` (validateRawExtension).
void ValidateRawObject(const RawJson& raw, const Path& p, size_t max_bytes, FieldErrors& errs);

}  // namespace allot::api::dra_util

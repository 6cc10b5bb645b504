// Field-format checks shared by API groups' validation (resource.k8s.io, PodSchedulingContext,
// Reservation) that api/machinery/names.h and api/machinery/meta_validation.h do not offer, with
// Kubernetes' exact messages.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/meta.h"
#include "api/machinery/validation.h"

namespace allot::api::validation_util {

// Whether `value` is one of `supported` (the lists NotSupported errors name).
bool IsOneOf(std::string_view value, const std::vector<std::string_view>& supported);

// Semantic Versioning 2.0.0 (the regular expression used by resource.k8s.io validation).
bool IsSemver(std::string_view value);
// v1helper.IsExtendedResourceName: "domain/name", outside kubernetes.io, usable in quota names.
bool IsExtendedResourceName(std::string_view value);

// Field.Invalid with a value printed without quotes (Go prints bools, structs and Stringers
// that way). FieldErrors has no raw-value entry point yet, so this currently quotes the value.
// TODO(dra): use FieldErrors::InvalidRaw once api/machinery/validation.h offers it.
void InvalidRaw(FieldErrors& errs, const Path& p, std::string_view raw, std::string_view detail);

// corevalidation.ValidateCSIDriverName: required, <= 63 bytes, DNS subdomain (case-insensitive).
void ValidateDriverName(std::string_view value, const Path& p, FieldErrors& errs);
// Node names are DNS subdomains.
void ValidateNodeName(std::string_view value, const Path& p, FieldErrors& errs);
// A RFC 4122 UID in normalized (lowercase) form.
void ValidateUID(std::string_view value, const Path& p, FieldErrors& errs);
// An address in CIDR form ("10.9.8.7/24", "2001:db8::5/64").
void ValidateInterfaceAddress(std::string_view value, const Path& p, FieldErrors& errs);

// metav1validation.ValidateConditions.
void ValidateConditions(const std::vector<Condition>& conditions, const Path& p, FieldErrors& errs);

// corevalidation.ValidateTemplateObjectMeta: only labels and annotations may be set.
void ValidateTemplateObjectMeta(const ObjectMeta& meta, const Path& p, FieldErrors& errs);

// A RawExtension that must hold a JSON object of at most `max_bytes` (validateRawExtension).
void ValidateRawObject(const RawJson& raw, const Path& p, size_t max_bytes, FieldErrors& errs);

}  // namespace allot::api::validation_util

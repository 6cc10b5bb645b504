// Validation of ObjectMeta and of the shared metav1 / core types in api/machinery/meta.h (label selectors,
// node selectors, tolerations, taints), with Kubernetes' messages and field paths
// (k8s.io/apimachinery/pkg/api/validation/objectmeta.go, .../apis/meta/v1/validation and the
// shared parts of pkg/apis/core/validation). Every kind's validate hook starts here:
//
//   FieldErrors errs;
//   ValidateObjectMeta(pod.metadata, /*namespaced=*/true, NameIsDnsSubdomain, errs);
//
// All functions append to `errs` and never clear it. Thread-compatible (no shared state).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/meta.h"
#include "api/machinery/validation.h"

namespace allot::api {

// apimachinery's ValidateNameFunc: the problems with `name` (empty when valid). `prefix` is true
// when the value is a generateName prefix, which may end in '-'.
using NameValidator = std::vector<std::string> (*)(std::string_view name, bool prefix);

// NameIsDNSSubdomain: pods, nodes, leases, most kinds.
std::vector<std::string> NameIsDnsSubdomain(std::string_view name, bool prefix);
// NameIsDNSLabel: namespaces.
std::vector<std::string> NameIsDnsLabel(std::string_view name, bool prefix);
// path.ValidatePathSegmentName: any name usable in a URL ("." / ".." / '/' / '%' rejected);
// what the generic registry checks for kinds without their own rule (core/v1 events).
std::vector<std::string> NameIsPathSegment(std::string_view name, bool prefix);

// ValidateObjectMeta on create, under `path` ("metadata"):
//   generateName valid as a prefix; name required ("name or generateName is required") and valid;
//   namespace required and a DNS label iff `namespaced`, else forbidden; generation >= 0; labels;
//   annotations (keys, 256 KiB total); ownerReferences (apiVersion/kind/name/uid non-empty, at
//   most one controller); finalizers (qualified names, not both orphan and foreground).
void ValidateObjectMeta(const ObjectMeta& meta, bool namespaced, NameValidator name_fn,
                        FieldErrors& errs, const Path& path = Path("metadata"));

// ValidateObjectMetaUpdate: no new finalizers once deletion started; generation not decremented;
// name, namespace, uid, creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds
// immutable; labels, annotations, ownerReferences and finalizers valid. resourceVersion presence
// is not checked here: the store fills it in for unconditional updates before validation.
void ValidateObjectMetaUpdate(const ObjectMeta& meta, const ObjectMeta& old, FieldErrors& errs,
                              const Path& path = Path("metadata"));

// Labels: keys are qualified names, values label values; errors are reported on `path` itself
// (Kubernetes does not key them), e.g. `metadata.labels: Invalid value: "a b": name part ...`.
void ValidateLabels(const StringMap& labels, const Path& path, FieldErrors& errs);
// A qualified name (label key, taint key, topology key, condition type).
void ValidateLabelName(std::string_view name, const Path& path, FieldErrors& errs);
void ValidateLabelValue(std::string_view value, const Path& path, FieldErrors& errs);
// Keys are qualified names (case-insensitive); the total of keys and values is at most 256 KiB
// ("Too long: may not be more than 262144 bytes").
void ValidateAnnotations(const StringMap& annotations, const Path& path, FieldErrors& errs);
inline constexpr int64_t kTotalAnnotationSizeLimitBytes = 256 * 1024;

void ValidateOwnerReferences(const std::vector<OwnerReference>& refs, const Path& path,
                             FieldErrors& errs);
void ValidateFinalizers(const std::vector<InternedString>& finalizers, const Path& path,
                        FieldErrors& errs);

// One Invalid error per problem (corevalidation.ValidateDNS1123Label / ...Subdomain).
void ValidateDnsLabel(std::string_view value, const Path& path, FieldErrors& errs);
void ValidateDnsSubdomain(std::string_view value, const Path& path, FieldErrors& errs);
// "must be greater than or equal to 0".
void ValidateNonnegative(int64_t value, const Path& path, FieldErrors& errs);

// metav1validation.ValidateLabelSelector with AllowInvalidLabelValueInSelector=false: operators
// In/NotIn need values, Exists/DoesNotExist forbid them, keys are qualified names, values label
// values, matchLabels valid labels.
void ValidateLabelSelector(const LabelSelector& selector, const Path& path, FieldErrors& errs);

// corevalidation.ValidateNodeSelector: at least one term ("must have at least one node selector
// term"); matchExpressions with In/NotIn/Exists/DoesNotExist/Gt/Lt and their value rules
// (values must be label values unless `allow_invalid_label_values`); matchFields only
// metadata.name with In/NotIn and one value.
void ValidateNodeSelector(const NodeSelector& selector, bool allow_invalid_label_values,
                          const Path& path, FieldErrors& errs);
void ValidateNodeSelectorTerm(const NodeSelectorTerm& term, bool allow_invalid_label_values,
                              const Path& path, FieldErrors& errs);

// corevalidation.ValidateTolerations: key a qualified name; empty key needs operator Exists;
// tolerationSeconds needs effect NoExecute; Equal ("" too) needs a label value, Exists an empty
// value; effect one of NoSchedule, PreferNoSchedule, NoExecute when set.
void ValidateTolerations(const std::vector<Toleration>& tolerations, const Path& path,
                         FieldErrors& errs);
// Node taints: key/value/effect (effect required) and unique by (key, effect).
void ValidateTaints(const std::vector<Taint>& taints, const Path& path, FieldErrors& errs);
// NoSchedule | PreferNoSchedule | NoExecute; "" is Required unless allow_empty.
void ValidateTaintEffect(std::string_view effect, bool allow_empty, const Path& path,
                         FieldErrors& errs);

}  // namespace allot::api

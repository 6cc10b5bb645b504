// StorageClass: defaulting and validation (pkg/apis/storage/validation ValidateStorageClass*),
// Kubernetes 1.37.
#include "api/storage/storage_class.h"

#include <algorithm>
#include <cctype>

#include "api/machinery/meta_validation.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(StorageClass, "storage.k8s.io", "v1", "StorageClass")

namespace {

constexpr size_t kMaxParameters = 512;
constexpr size_t kMaxParameterBytes = 256 * 1024;
const std::vector<std::string_view> kReclaimPolicies = {"Delete", "Retain"};
const std::vector<std::string_view> kBindingModes = {"Immediate", "WaitForFirstConsumer"};

void ValidateTopologies(const std::vector<TopologySelectorTerm>& terms, const Path& p,
                        FieldErrors& errs) {
  for (size_t i = 0; i < terms.size(); ++i) {
    const Path tp = p.Index(i);
    if (terms[i].matchLabelExpressions.empty()) {
      errs.Required(tp.Child("matchLabelExpressions"), "must have at least one label expression");
    }
    for (size_t j = 0; j < terms[i].matchLabelExpressions.size(); ++j) {
      const TopologySelectorLabelRequirement& r = terms[i].matchLabelExpressions[j];
      const Path rp = tp.Child("matchLabelExpressions").Index(j);
      ValidateLabelName(r.key, rp.Child("key"), errs);
      if (r.values.empty()) errs.Required(rp.Child("values"), "must specify as least one value");
      for (size_t k = 0; k < r.values.size(); ++k) {
        ValidateLabelValue(r.values[k], rp.Child("values").Index(k), errs);
      }
    }
  }
}

}  // namespace

void DefaultStorageClass(StorageClass& sc) {
  if (!sc.reclaimPolicy) sc.reclaimPolicy = "Delete";
  if (!sc.volumeBindingMode) sc.volumeBindingMode = "Immediate";
}

void ValidateStorageClass(const StorageClass& sc, FieldErrors& errs) {
  ValidateObjectMeta(sc.metadata, false, NameIsDnsSubdomain, errs);
  if (sc.provisioner.empty()) {
    errs.Required(Path("provisioner"));
  } else {
    std::string lower = sc.provisioner;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    ValidateLabelName(lower, Path("provisioner"), errs);
  }
  const Path params("parameters");
  if (sc.parameters.size() > kMaxParameters) {
    errs.TooLong(params, kMaxParameters);
  } else {
    size_t total = 0;
    for (const auto& [k, v] : sc.parameters) {
      if (k.empty()) errs.Invalid(params, k, "field can not be empty.");
      total += k.size() + v.size();
    }
    if (total > kMaxParameterBytes) errs.TooLong(params, kMaxParameterBytes);
  }
  if (sc.reclaimPolicy && !validation_util::IsOneOf(*sc.reclaimPolicy, kReclaimPolicies)) {
    errs.NotSupported(Path("reclaimPolicy"), *sc.reclaimPolicy, kReclaimPolicies);
  }
  if (!sc.volumeBindingMode) {
    errs.Required(Path("volumeBindingMode"));
  } else if (!validation_util::IsOneOf(*sc.volumeBindingMode, kBindingModes)) {
    errs.NotSupported(Path("volumeBindingMode"), *sc.volumeBindingMode, kBindingModes);
  }
  ValidateTopologies(sc.allowedTopologies, Path("allowedTopologies"), errs);
}

void ValidateStorageClassUpdate(const StorageClass& sc, const StorageClass& old,
                                FieldErrors& errs) {
  ValidateObjectMetaUpdate(sc.metadata, old.metadata, errs);
  if (sc.parameters != old.parameters) errs.InvalidRendered(Path("parameters"), "map[string]string{...}", "field is immutable");
  if (sc.provisioner != old.provisioner) errs.Invalid(Path("provisioner"), sc.provisioner, "field is immutable");
  if (sc.reclaimPolicy != old.reclaimPolicy) {
    errs.Invalid(Path("reclaimPolicy"), sc.reclaimPolicy.value_or(""), "field is immutable");
  }
  if (sc.volumeBindingMode != old.volumeBindingMode) {
    errs.Invalid(Path("volumeBindingMode"), sc.volumeBindingMode.value_or(""), "field is immutable");
  }
}

}  // namespace allot::api

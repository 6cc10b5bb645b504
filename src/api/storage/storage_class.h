// storage.k8s.io/v1 StorageClass (k8s.io/api storage/v1, Kubernetes 1.37): how volumes of a
// class are provisioned and bound. Allot stores, defaults and validates StorageClasses for
// kube-scheduler's volume plugins; it provisions nothing.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "api/machinery/validation.h"

namespace allot::api {

inline constexpr std::string_view kStorageGroup = "storage.k8s.io";
// The annotation that makes a class the default for claims naming none.
inline constexpr std::string_view kDefaultStorageClassAnnotation =
    "storageclass.kubernetes.io/is-default-class";

struct TopologySelectorLabelRequirement {
  std::string key;
  std::vector<std::string> values;
  template <class V> void Visit(V& v) {
    v("key", key, {.always = true, .required = true});
    v("values", values, {.atomic = true, .always = true, .required = true});
  }
  bool operator==(const TopologySelectorLabelRequirement&) const = default;
};

struct TopologySelectorTerm {
  std::vector<TopologySelectorLabelRequirement> matchLabelExpressions;
  template <class V> void Visit(V& v) {
    v("matchLabelExpressions", matchLabelExpressions, {.atomic = true});
  }
  bool operator==(const TopologySelectorTerm&) const = default;
};

struct StorageClass : TypedObject<StorageClass> {
  static const TypeInfo& Type();
  std::string provisioner;
  std::map<std::string, std::string> parameters;
  std::optional<std::string> reclaimPolicy;  // Delete (default) | Retain
  std::vector<std::string> mountOptions;
  std::optional<bool> allowVolumeExpansion;
  std::optional<std::string> volumeBindingMode;  // Immediate (default) | WaitForFirstConsumer
  std::vector<TopologySelectorTerm> allowedTopologies;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("provisioner", provisioner, {.always = true, .required = true});
    v("parameters", parameters);
    v("reclaimPolicy", reclaimPolicy);
    v("mountOptions", mountOptions, {.atomic = true});
    v("allowVolumeExpansion", allowVolumeExpansion);
    v("volumeBindingMode", volumeBindingMode);
    v("allowedTopologies", allowedTopologies, {.atomic = true});
  }
  bool operator==(const StorageClass& o) const {
    return metadata == o.metadata && provisioner == o.provisioner && parameters == o.parameters &&
           reclaimPolicy == o.reclaimPolicy && mountOptions == o.mountOptions &&
           allowVolumeExpansion == o.allowVolumeExpansion &&
           volumeBindingMode == o.volumeBindingMode && allowedTopologies == o.allowedTopologies;
  }
};

// SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate.
void DefaultStorageClass(StorageClass& sc);
// storagevalidation.ValidateStorageClass: a DNS-subdomain name; a provisioner that is a
// qualified name (lower-cased); parameters with non-empty keys, at most 512 of them and 256 KiB
// in all; reclaimPolicy and volumeBindingMode supported; allowed topologies with keys and
// values. On update parameters, provisioner, reclaimPolicy and volumeBindingMode are immutable.
void ValidateStorageClass(const StorageClass& sc, FieldErrors& errs);
void ValidateStorageClassUpdate(const StorageClass& sc, const StorageClass& old,
                                FieldErrors& errs);

}  // namespace allot::api

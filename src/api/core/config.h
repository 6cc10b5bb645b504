// core/v1 ConfigMap, Secret and ServiceAccount: what a pod is given to run with — configuration,
// credentials and an identity (k8s.io/api core/v1, Kubernetes 1.37). Allot stores and validates
// them as kube-apiserver does; nothing in Allot reads a Secret's data, and the audit log never
// records a Secret's body (apiserver/audit).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/pod.h"  // LocalObjectReference
#include "api/machinery/field.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "api/machinery/validation.h"

namespace allot::api {

// The most bytes a ConfigMap's or Secret's values may hold together (core.MaxSecretSize).
inline constexpr size_t kMaxConfigDataBytes = 1024 * 1024;

inline constexpr std::string_view kSecretTypeOpaque = "Opaque";

struct ConfigMap : TypedObject<ConfigMap> {
  static const TypeInfo& Type();
  std::optional<bool> immutable;
  std::map<std::string, std::string> data;
  std::map<std::string, Bytes> binaryData;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("immutable", immutable);
    v("data", data);
    v("binaryData", binaryData);
  }
  bool operator==(const ConfigMap& o) const {
    return metadata == o.metadata && immutable == o.immutable && data == o.data &&
           binaryData == o.binaryData;
  }
};

struct Secret : TypedObject<Secret> {
  static const TypeInfo& Type();
  std::optional<bool> immutable;
  std::map<std::string, Bytes> data;
  // Write-only: merged into data when written (a key in both takes stringData's value), never
  // stored or returned.
  std::map<std::string, std::string> stringData;
  std::string type;  // Opaque (default), kubernetes.io/tls, kubernetes.io/dockerconfigjson, ...
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("immutable", immutable);
    v("data", data);
    v("stringData", stringData);
    v("type", type);
  }
  bool operator==(const Secret& o) const {
    return metadata == o.metadata && immutable == o.immutable && data == o.data &&
           stringData == o.stringData && type == o.type;
  }
};

struct ServiceAccount : TypedObject<ServiceAccount> {
  static const TypeInfo& Type();
  std::vector<ObjectReference> secrets;
  std::vector<LocalObjectReference> imagePullSecrets;
  std::optional<bool> automountServiceAccountToken;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("secrets", secrets, {.merge_key = "name"});
    v("imagePullSecrets", imagePullSecrets);
    v("automountServiceAccountToken", automountServiceAccountToken);
  }
  bool operator==(const ServiceAccount& o) const {
    return metadata == o.metadata && secrets == o.secrets &&
           imagePullSecrets == o.imagePullSecrets &&
           automountServiceAccountToken == o.automountServiceAccountToken;
  }
};

// validation.IsConfigMapKey: at most 253 bytes of [-._a-zA-Z0-9], not "." or "..", not
// starting with "..". The messages Kubernetes gives, empty when valid.
std::vector<std::string> ConfigKeyErrors(std::string_view key);

// Secret defaulting: type Opaque when empty; stringData merged into data and cleared.
void DefaultSecret(Secret& secret);

// corevalidation.ValidateConfigMap / ValidateSecret / ValidateServiceAccount and their updates:
// DNS-subdomain names, keys (IsConfigMapKey), 1 MiB of values at most, a key in both data and
// binaryData refused, the fields each Secret type requires; on update, an immutable object's
// data (and its `immutable`) and a Secret's type may not change.
void ValidateConfigMap(const ConfigMap& cm, FieldErrors& errs);
void ValidateConfigMapUpdate(const ConfigMap& cm, const ConfigMap& old, FieldErrors& errs);
void ValidateSecret(const Secret& secret, FieldErrors& errs);
void ValidateSecretUpdate(const Secret& secret, const Secret& old, FieldErrors& errs);
void ValidateServiceAccount(const ServiceAccount& sa, FieldErrors& errs);
void ValidateServiceAccountUpdate(const ServiceAccount& sa, const ServiceAccount& old,
                                  FieldErrors& errs);

// configmaps ("cm"), secrets, serviceaccounts ("sa"), with kubectl's columns.
void RegisterConfigResources(ResourceRegistry& registry);

}  // namespace allot::api

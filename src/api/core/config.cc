// ConfigMap, Secret and ServiceAccount: defaulting and validation as pkg/apis/core/validation
// (ValidateConfigMap, ValidateSecret, ValidateServiceAccount) and kubectl's columns as
// pkg/printers/internalversion, Kubernetes 1.37.
#include "api/core/config.h"

#include <rapidjson/document.h>

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"
#include "api/machinery/strategy_hooks.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(ConfigMap, "", "v1", "ConfigMap")
ALLOT_DEFINE_TYPE(Secret, "", "v1", "Secret")
ALLOT_DEFINE_TYPE(ServiceAccount, "", "v1", "ServiceAccount")

namespace {

constexpr std::string_view kImmutableDetail = "field is immutable when `immutable` is set";
// Contents of a Secret are never echoed in an error.
constexpr std::string_view kRedacted = "<secret contents redacted>";

bool IsConfigKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

void ValidateKeys(const std::vector<std::string_view>& keys, const Path& p, FieldErrors& errs) {
  for (std::string_view key : keys) {
    for (const std::string& m : ConfigKeyErrors(key)) errs.Invalid(p.Key(key), key, m);
  }
}

template <class Map>
std::vector<std::string_view> KeysOf(const Map& m) {
  std::vector<std::string_view> keys;
  keys.reserve(m.size());
  for (const auto& [k, v] : m) keys.push_back(k);
  return keys;
}

// A Secret type's data must hold well-formed JSON under `key` (.dockercfg, .dockerconfigjson).
void RequireJsonKey(const Secret& s, std::string_view key, const Path& data, FieldErrors& errs) {
  auto it = s.data.find(std::string(key));
  if (it == s.data.end()) {
    errs.Required(data.Key(key));
    return;
  }
  rapidjson::Document doc;
  doc.Parse(it->second.data.data(), it->second.data.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    errs.Invalid(data.Key(key), kRedacted, "invalid JSON in secret data");
  }
}

void ValidateSecretType(const Secret& s, const Path& data, FieldErrors& errs) {
  auto has = [&](std::string_view key) { return s.data.count(std::string(key)) > 0; };
  if (s.type == "kubernetes.io/service-account-token") {
    constexpr std::string_view kName = "kubernetes.io/service-account.name";
    auto it = s.metadata.annotations.find(std::string(kName));
    if (it == s.metadata.annotations.end() || it->second.empty()) {
      errs.Required(Path("metadata").Child("annotations").Key(kName));
    }
  } else if (s.type == "kubernetes.io/dockercfg") {
    RequireJsonKey(s, ".dockercfg", data, errs);
  } else if (s.type == "kubernetes.io/dockerconfigjson") {
    RequireJsonKey(s, ".dockerconfigjson", data, errs);
  } else if (s.type == "kubernetes.io/basic-auth") {
    if (!has("username") && !has("password")) {
      errs.Required(data.Key("username"));
      errs.Required(data.Key("password"));
    }
  } else if (s.type == "kubernetes.io/ssh-auth") {
    auto it = s.data.find("ssh-privatekey");
    if (it == s.data.end() || it->second.empty()) errs.Required(data.Key("ssh-privatekey"));
  } else if (s.type == "kubernetes.io/tls") {
    if (!has("tls.crt")) errs.Required(data.Key("tls.crt"));
    if (!has("tls.key")) errs.Required(data.Key("tls.key"));
  }
}

std::vector<TableCell> ConfigMapRow(const Object& obj, Time now) {
  const auto& cm = static_cast<const ConfigMap&>(obj);
  return {static_cast<int64_t>(cm.data.size() + cm.binaryData.size()), AgeCell(obj, now)};
}

std::vector<TableCell> SecretRow(const Object& obj, Time now) {
  const auto& s = static_cast<const Secret&>(obj);
  return {s.type, static_cast<int64_t>(s.data.size()), AgeCell(obj, now)};
}

std::vector<TableCell> ServiceAccountRow(const Object& obj, Time now) {
  return {AgeCell(obj, now)};
}

std::optional<std::string> SecretFieldValue(const Object& obj, std::string_view field) {
  if (field == "type") return static_cast<const Secret&>(obj).type;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> ConfigKeyErrors(std::string_view key) {
  std::vector<std::string> out;
  if (key.size() > kDnsSubdomainMaxLength) out.push_back(MaxLenError(kDnsSubdomainMaxLength));
  bool chars_ok = !key.empty();
  for (char c : key) chars_ok = chars_ok && IsConfigKeyChar(c);
  if (!chars_ok) {
    out.push_back(RegexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        "[-._a-zA-Z0-9]+", {"key.name", "KEY_NAME", "key-name"}));
  }
  if (key == ".") {
    out.push_back("must not be '.'");
  } else if (key == "..") {
    out.push_back("must not be '..'");
  } else if (key.substr(0, 2) == "..") {
    out.push_back("must not start with '..'");
  }
  return out;
}

void DefaultSecret(Secret& secret) {
  if (secret.type.empty()) secret.type = std::string(kSecretTypeOpaque);
  for (auto& [key, value] : secret.stringData) secret.data[key] = Bytes{std::move(value)};
  secret.stringData.clear();
}

void ValidateConfigMap(const ConfigMap& cm, FieldErrors& errs) {
  ValidateObjectMeta(cm.metadata, true, NameIsDnsSubdomain, errs);
  const Path data("data");
  size_t total = 0;
  for (const auto& [key, value] : cm.data) {
    for (const std::string& m : ConfigKeyErrors(key)) errs.Invalid(data.Key(key), key, m);
    if (cm.binaryData.count(key)) {
      errs.Invalid(data.Key(key), key, "duplicate of key present in binaryData");
    }
    total += value.size();
  }
  ValidateKeys(KeysOf(cm.binaryData), Path("binaryData"), errs);
  for (const auto& [key, value] : cm.binaryData) total += value.data.size();
  if (total > kMaxConfigDataBytes) errs.TooLong(Path(""), kMaxConfigDataBytes);
}

void ValidateConfigMapUpdate(const ConfigMap& cm, const ConfigMap& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(cm.metadata, old.metadata, errs);
  if (old.immutable.value_or(false)) {
    if (!cm.immutable.value_or(false)) errs.Forbidden(Path("immutable"), kImmutableDetail);
    if (cm.data != old.data) errs.Forbidden(Path("data"), kImmutableDetail);
    if (cm.binaryData != old.binaryData) errs.Forbidden(Path("binaryData"), kImmutableDetail);
  }
}

void ValidateSecret(const Secret& secret, FieldErrors& errs) {
  ValidateObjectMeta(secret.metadata, true, NameIsDnsSubdomain, errs);
  const Path data("data");
  ValidateKeys(KeysOf(secret.data), data, errs);
  size_t total = 0;
  for (const auto& [key, value] : secret.data) total += value.data.size();
  if (total > kMaxConfigDataBytes) errs.TooLong(data, kMaxConfigDataBytes);
  ValidateSecretType(secret, data, errs);
}

void ValidateSecretUpdate(const Secret& secret, const Secret& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(secret.metadata, old.metadata, errs);
  if (secret.type != old.type) errs.Invalid(Path("type"), secret.type, "field is immutable");
  if (old.immutable.value_or(false)) {
    if (!secret.immutable.value_or(false)) errs.Forbidden(Path("immutable"), kImmutableDetail);
    if (secret.data != old.data) errs.Forbidden(Path("data"), kImmutableDetail);
  }
}

void ValidateServiceAccount(const ServiceAccount& sa, FieldErrors& errs) {
  ValidateObjectMeta(sa.metadata, true, NameIsDnsSubdomain, errs);
}

void ValidateServiceAccountUpdate(const ServiceAccount& sa, const ServiceAccount& old,
                                  FieldErrors& errs) {
  ValidateObjectMetaUpdate(sa.metadata, old.metadata, errs);
}

void RegisterConfigResources(ResourceRegistry& registry) {
  ResourceInfo cm = NewResourceInfo("", "v1", "configmaps", "configmap", ConfigMap::Type(), true);
  cm.short_names = {"cm"};
  cm.validate = hooks::Validate<ConfigMap, ValidateConfigMap>;
  cm.validate_update = hooks::ValidateUpdate<ConfigMap, ValidateConfigMapUpdate>;
  cm.columns = {{"Data", "string", "", "Number of data in the configmap", 0}, AgeColumn()};
  cm.row = ConfigMapRow;
  registry.Add(std::move(cm));

  ResourceInfo secrets = NewResourceInfo("", "v1", "secrets", "secret", Secret::Type(), true);
  secrets.default_fn = hooks::Default<Secret, DefaultSecret>;
  secrets.validate = hooks::Validate<Secret, ValidateSecret>;
  secrets.validate_update = hooks::ValidateUpdate<Secret, ValidateSecretUpdate>;
  secrets.field_labels = {"type"};
  secrets.field_value = SecretFieldValue;
  secrets.columns = {{"Type", "string", "", "The type of the secret", 0},
                     {"Data", "string", "", "Number of data in the secret", 0},
                     AgeColumn()};
  secrets.row = SecretRow;
  registry.Add(std::move(secrets));

  ResourceInfo sa = NewResourceInfo("", "v1", "serviceaccounts", "serviceaccount",
                                    ServiceAccount::Type(), true);
  sa.short_names = {"sa"};
  sa.validate = hooks::Validate<ServiceAccount, ValidateServiceAccount>;
  sa.validate_update = hooks::ValidateUpdate<ServiceAccount, ValidateServiceAccountUpdate>;
  sa.columns = {AgeColumn()};
  sa.row = ServiceAccountRow;
  registry.Add(std::move(sa));
}

}  // namespace allot::api

#include "api/machinery/resources.h"

#include <cstdio>
#include <cstdlib>

namespace allot::api {

ResourceInfo NewResourceInfo(std::string group, std::string version, std::string resource,
                             std::string singular, const TypeInfo& type, bool namespaced) {
  ResourceInfo r;
  r.group = std::move(group);
  r.version = std::move(version);
  r.resource = std::move(resource);
  r.singular = std::move(singular);
  r.type = &type;
  r.namespaced = namespaced;
  return r;
}

void ResourceRegistry::Add(ResourceInfo info) { resources_.push_back(std::move(info)); }

ResourceInfo* ResourceRegistry::Mutable(std::string_view group, std::string_view resource) {
  for (ResourceInfo& r : resources_) {
    if (r.group == group && r.resource == resource) return &r;
  }
  return nullptr;
}

const ResourceInfo* ResourceRegistry::Find(std::string_view group, std::string_view version,
                                           std::string_view resource) const {
  for (const auto& r : resources_) {
    if (r.group == group && r.version == version && r.resource == resource) return &r;
  }
  return nullptr;
}

void ResourceRegistry::AddServedVersion(std::string_view storage_group, std::string_view resource,
                                         std::string group, std::string version,
                                         Status (*to_storage)(rapidjson::Document&),
                                         void (*from_storage)(rapidjson::Document&),
                                         bool same_shape, std::string_view protobuf_message) {
  const ResourceInfo* storage = nullptr;
  for (const auto& r : resources_) {
    if (r.group == storage_group && r.resource == resource) storage = &r;
  }
  if (!storage) return;
  ServedVersion& sv = served_.emplace_back();
  sv.storage = storage;
  sv.view_type = *storage->type;
  sv.view_type.group = group;
  sv.view_type.version = version;
  sv.view_type.api_version = group.empty() ? version : group + "/" + version;
  sv.view = *storage;
  sv.view.group = std::move(group);
  sv.view.version = std::move(version);
  sv.view.type = &sv.view_type;
  sv.to_storage = to_storage;
  sv.from_storage = from_storage;
  sv.same_shape = same_shape;
  sv.protobuf_message = std::string(protobuf_message);
}

const ServedVersion* ResourceRegistry::FindServed(std::string_view group, std::string_view version,
                                                  std::string_view resource) const {
  for (const auto& sv : served_) {
    if (sv.view.group == group && sv.view.version == version && sv.view.resource == resource) {
      return &sv;
    }
  }
  return nullptr;
}

const ResourceInfo* ResourceRegistry::FindByKind(std::string_view api_version,
                                                 std::string_view kind) const {
  for (const auto& r : resources_) {
    if (r.type->api_version == api_version && r.type->kind == kind) return &r;
  }
  return nullptr;
}

const ResourceInfo* ResourceRegistry::FindByType(const TypeInfo& type) const {
  for (const auto& r : resources_) {
    if (r.type == &type) return &r;
  }
  return nullptr;
}

const ResourceInfo& MustFindByType(const TypeInfo& type) {
  const ResourceInfo* r = ResourceRegistry::Default().FindByType(type);
  if (r == nullptr) {
    std::fprintf(stderr, "allot: no resource serves the kind %s\n", type.kind.c_str());
    std::abort();
  }
  return *r;
}

std::string HumanDuration(int64_t s) {
  // k8s.io/apimachinery/pkg/util/duration.HumanDuration
  if (s < 0) return "<invalid>";
  if (s == 0) return "0s";
  if (s < 60 * 2) return std::to_string(s) + "s";
  int64_t minutes = s / 60;
  if (minutes < 10) {
    int64_t sec = s % 60;
    return sec == 0 ? std::to_string(minutes) + "m"
                    : std::to_string(minutes) + "m" + std::to_string(sec) + "s";
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  int64_t hours = s / 3600;
  if (hours < 8) {
    int64_t m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h"
                  : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    int64_t h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d"
                  : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    int64_t d = (hours / 24) % 365;
    return d == 0 ? std::to_string(hours / 24 / 365) + "y"
                  : std::to_string(hours / 24 / 365) + "y" + std::to_string(d) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::string AgeCell(const Object& obj, Time now) {
  if (!obj.metadata.creationTimestamp) return "<unknown>";
  return HumanDuration(now.unix_seconds() - obj.metadata.creationTimestamp->unix_seconds());
}

TableColumn AgeColumn() {
  return {"Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was "
          "created.",
          0};
}

}  // namespace allot::api

// Strategies for the core/v1 (and coordination.k8s.io) resources.
#include "api/core.h"
#include "api/resources.h"

namespace allot::api {

namespace {

void DefaultNamespace(Object& obj) {
  auto& ns = static_cast<Namespace&>(obj);
  if (ns.status.phase.empty()) ns.status.phase = "Active";
  // Kubernetes labels every namespace with its own name.
  ns.metadata.labels["kubernetes.io/metadata.name"] = ns.metadata.name;
}

std::vector<TableCell> NamespaceRow(const Object& obj, Time now) {
  const auto& ns = static_cast<const Namespace&>(obj);
  return {ns.status.phase, AgeCell(obj, now)};
}

}  // namespace

void RegisterCoreResources(ResourceRegistry& registry) {
  ResourceInfo ns;
  ns.group = "";
  ns.version = "v1";
  ns.resource = "namespaces";
  ns.singular = "namespace";
  ns.type = &Namespace::Type();
  ns.namespaced = false;
  ns.short_names = {"ns"};
  ns.status_subresource = true;
  ns.default_fn = DefaultNamespace;
  ns.field_labels = {"status.phase"};
  ns.field_value = [](const Object& obj, std::string_view field) -> std::optional<std::string> {
    if (field == "status.phase") return static_cast<const Namespace&>(obj).status.phase;
    return std::nullopt;
  };
  ns.columns = {{"Status", "string", "", "The status of the namespace", 0},
                {"Age", "string", "", "", 0}};
  ns.row = NamespaceRow;
  registry.Add(std::move(ns));
}

}  // namespace allot::api

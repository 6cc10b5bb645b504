// Strategies for the core/v1 and coordination.k8s.io/v1 resources: the ResourceInfo hooks,
// wired to the functions of api/core/strategy.h.
#include "api/machinery/resources.h"

#include "api/core/config.h"
#include "api/core/service.h"
#include "api/core/strategy.h"
#include "api/core/volumes.h"
#include "api/core/types.h"
#include "api/machinery/meta_validation.h"
#include "api/machinery/strategy_hooks.h"

namespace allot::api {
namespace {

// Namespaced unless the caller says otherwise.
ResourceInfo Core(std::string resource, std::string singular, const TypeInfo& type) {
  return NewResourceInfo(type.group, type.version, std::move(resource), std::move(singular), type,
                         /*namespaced=*/true);
}

ResourceInfo Namespaces() {
  ResourceInfo r = Core("namespaces", "namespace", Namespace::Type());
  r.namespaced = false;
  r.short_names = {"ns"};
  r.status_subresource = true;
  r.default_fn = hooks::Default<Namespace, DefaultNamespace>;
  r.validate = hooks::Validate<Namespace, ValidateNamespace>;
  r.validate_update = hooks::ValidateUpdate<Namespace, ValidateNamespaceUpdate>;
  r.validate_status = hooks::ValidateUpdate<Namespace, ValidateNamespaceUpdate>;
  r.field_labels = {"status.phase", "name"};
  r.field_value = NamespaceFieldValue;
  r.columns = NamespaceColumns();
  r.row = NamespaceRow;
  return r;
}

ResourceInfo Pods() {
  ResourceInfo r = Core("pods", "pod", Pod::Type());
  r.counts_generation = true;
  r.short_names = {"po"};
  r.categories = {"all"};
  r.status_subresource = true;
  r.extra_subresources = {"binding", "eviction"};
  r.default_fn = hooks::Default<Pod, DefaultPod>;
  r.validate = hooks::Validate<Pod, ValidatePod>;
  r.validate_update = hooks::ValidateUpdate<Pod, ValidatePodUpdate>;
  r.validate_status = hooks::ValidateUpdate<Pod, ValidatePodStatusUpdate>;
  r.field_labels = {
      "spec.nodeName",    "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
      "spec.hostNetwork", "status.phase",       "status.podIP",       "status.nominatedNodeName"};
  r.field_value = PodFieldValue;
  r.columns = PodColumns();
  r.row = PodRow;
  return r;
}

ResourceInfo Nodes() {
  ResourceInfo r = Core("nodes", "node", Node::Type());
  r.namespaced = false;
  r.short_names = {"no"};
  r.status_subresource = true;
  r.create_keeps_status = true;  // kubelets register nodes with their status
  r.default_fn = hooks::Default<Node, DefaultNode>;
  r.validate = hooks::Validate<Node, ValidateNode>;
  r.validate_update = hooks::ValidateUpdate<Node, ValidateNodeUpdate>;
  r.validate_status = hooks::ValidateUpdate<Node, ValidateNodeUpdate>;
  r.field_labels = {"spec.unschedulable"};
  r.field_value = NodeFieldValue;
  r.columns = NodeColumns();
  r.row = NodeRow;
  return r;
}

void ValidateEventUpdate(const Event& e, const Event& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(e.metadata, old.metadata, errs);
}

ResourceInfo Events() {
  ResourceInfo r = Core("events", "event", Event::Type());
  r.short_names = {"ev"};
  r.validate = hooks::Validate<Event, ValidateEvent>;
  r.validate_update = hooks::ValidateUpdate<Event, ValidateEventUpdate>;
  r.field_labels = {"involvedObject.kind",
                    "involvedObject.namespace",
                    "involvedObject.name",
                    "involvedObject.uid",
                    "involvedObject.apiVersion",
                    "involvedObject.resourceVersion",
                    "involvedObject.fieldPath",
                    "reason",
                    "reportingComponent",
                    "source",
                    "type"};
  r.field_value = EventFieldValue;
  r.columns = EventColumns();
  r.row = EventRow;
  r.leading_name_column = false;
  return r;
}

ResourceInfo Leases() {
  ResourceInfo r = Core("leases", "lease", Lease::Type());
  r.validate = hooks::Validate<Lease, ValidateLease>;
  r.validate_update = hooks::ValidateUpdate<Lease, ValidateLeaseUpdate>;
  r.columns = LeaseColumns();
  r.row = LeaseRow;
  return r;
}

}  // namespace

void RegisterCoreResources(ResourceRegistry& registry) {
  registry.Add(Namespaces());
  registry.Add(Nodes());
  registry.Add(Pods());
  registry.Add(Events());
  registry.Add(Leases());
  RegisterConfigResources(registry);
  RegisterVolumeResources(registry);
  RegisterServiceResources(registry);
}

}  // namespace allot::api

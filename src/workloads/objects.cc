#include "workloads/objects.h"

#include "api/machinery/quantity.h"

namespace allot::workloads {

namespace {

api::Quantity Q(const std::string& s) { return api::Quantity::Parse(s).value(); }

api::DeviceSelector Cel(std::string expression) {
  api::DeviceSelector s;
  s.cel = api::CELDeviceSelector{std::move(expression)};
  return s;
}

}  // namespace

std::unique_ptr<api::Node> MakeNode(const std::string& name, const NodeShape& shape) {
  auto n = std::make_unique<api::Node>();
  n->metadata.name = name;
  n->metadata.labels["kubernetes.io/hostname"] = name;
  for (auto* list : {&n->status.capacity, &n->status.allocatable}) {
    (*list)["cpu"] = Q(shape.cpu);
    (*list)["memory"] = Q(shape.memory);
    (*list)["pods"] = Q(shape.pods);
  }
  if (shape.ready_condition) {
    api::NodeCondition ready;
    ready.type = "Ready";
    ready.status = "True";
    n->status.conditions.push_back(std::move(ready));
  }
  return n;
}

std::unique_ptr<api::ResourceSlice> MakeNodeLocalSlice(const std::string& name,
                                                       const std::string& driver,
                                                       const std::string& node, int64_t devices,
                                                       const DeviceShape& shape) {
  auto s = std::make_unique<api::ResourceSlice>();
  s->metadata.name = name;
  s->spec.driver = driver;
  s->spec.pool.name = node;
  s->spec.pool.generation = 1;
  s->spec.pool.resourceSliceCount = 1;
  s->spec.nodeName = node;
  for (int64_t d = 0; d < devices; ++d) {
    api::Device dev;
    dev.name = shape.prefix + std::to_string(d);
    if (shape.index_attribute) dev.attributes["index"].intValue = d;
    dev.attributes["model"].stringValue = shape.model;
    dev.capacity["memory"].value = Q(shape.memory);
    if (shape.binds_to_node) dev.bindsToNode = true;
    dev.bindingConditions = shape.binding_conditions;
    dev.bindingFailureConditions = shape.binding_failure_conditions;
    s->spec.devices.push_back(std::move(dev));
  }
  return s;
}

std::unique_ptr<api::DeviceClass> MakeDriverClass(const std::string& name,
                                                  const std::string& driver) {
  auto c = std::make_unique<api::DeviceClass>();
  c->metadata.name = name;
  c->spec.selectors.push_back(Cel("device.driver == '" + driver + "'"));
  return c;
}

api::ResourceClaimSpec ClaimSpec(const std::string& device_class, int64_t count,
                                 const std::string& selector, const std::string& match_attribute) {
  api::ResourceClaimSpec spec;
  api::DeviceRequest r;
  r.name = "gpu";
  r.exactly.emplace();
  r.exactly->deviceClassName = device_class;
  r.exactly->allocationMode = "ExactCount";
  r.exactly->count = count;
  if (!selector.empty()) r.exactly->selectors.push_back(Cel(selector));
  spec.devices.requests.push_back(std::move(r));
  if (count > 1 && !match_attribute.empty()) {
    api::DeviceConstraint c;
    c.matchAttribute = match_attribute;
    spec.devices.constraints.push_back(std::move(c));
  }
  return spec;
}

std::unique_ptr<api::ResourceClaimTemplate> MakeClaimTemplate(const std::string& ns,
                                                              const std::string& name,
                                                              api::ResourceClaimSpec spec) {
  auto t = std::make_unique<api::ResourceClaimTemplate>();
  t->metadata.name = name;
  t->metadata.namespace_ = ns;
  t->spec.spec = std::move(spec);
  return t;
}

std::unique_ptr<api::ResourceClaim> MakeClaim(const std::string& ns, const std::string& name,
                                              api::ResourceClaimSpec spec) {
  auto c = std::make_unique<api::ResourceClaim>();
  c->metadata.name = name;
  c->metadata.namespace_ = ns;
  c->spec = std::move(spec);
  return c;
}

std::unique_ptr<api::Pod> MakePod(const std::string& ns, const std::string& name,
                                  const std::string& cpu, const std::string& memory) {
  auto p = std::make_unique<api::Pod>();
  p->metadata.name = name;
  p->metadata.namespace_ = ns;
  api::Container c;
  c.name = "pause";
  c.image = "registry.k8s.io/pause:3.10";
  c.resources.requests["cpu"] = Q(cpu);
  c.resources.requests["memory"] = Q(memory);
  p->spec.containers.push_back(std::move(c));
  return p;
}

namespace {

void AddClaim(api::Pod& pod, api::PodResourceClaim ref) {
  for (api::Container& c : pod.spec.containers) {
    api::ContainerResourceClaim cc;
    cc.name = ref.name;
    c.resources.claims.push_back(std::move(cc));
  }
  pod.spec.resourceClaims.push_back(std::move(ref));
}

}  // namespace

void AddTemplateClaim(api::Pod& pod, const std::string& claim, const std::string& tmpl) {
  api::PodResourceClaim ref;
  ref.name = claim;
  ref.resourceClaimTemplateName = tmpl;
  AddClaim(pod, std::move(ref));
}

void AddExistingClaim(api::Pod& pod, const std::string& claim, const std::string& claim_name) {
  api::PodResourceClaim ref;
  ref.name = claim;
  ref.resourceClaimName = claim_name;
  AddClaim(pod, std::move(ref));
}

}  // namespace allot::workloads

#include "api/core/types.h"

#include "api/machinery/reflect.h"
#include "api/machinery/scheme.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(Namespace, "", "v1", "Namespace")
ALLOT_DEFINE_TYPE(Pod, "", "v1", "Pod")
ALLOT_DEFINE_TYPE(Binding, "", "v1", "Binding")
ALLOT_DEFINE_TYPE(Node, "", "v1", "Node")
ALLOT_DEFINE_TYPE(Event, "", "v1", "Event")
ALLOT_DEFINE_TYPE(Lease, "coordination.k8s.io", "v1", "Lease")

std::vector<const char*> Volume::SetSources() const {
  struct Collector {
    std::vector<const char*> names;
    void operator()(const char* name, const RawJson& value, FieldTags = {}) {
      if (!value.empty()) names.push_back(name);
    }
    void operator()(const char*, const std::string&, FieldTags = {}) {}
  };
  Collector c;
  const_cast<Volume*>(this)->Visit(c);
  return c.names;
}

void RegisterSubresourceKinds(Scheme& scheme) { scheme.Add(Binding::Type()); }

}  // namespace allot::api

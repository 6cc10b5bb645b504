#include "api/core/types.h"
#include "api/machinery/resources.h"
#include "api/machinery/scheme.h"

namespace allot::api {

const ResourceRegistry& ResourceRegistry::Default() {
  static const ResourceRegistry* registry = [] {
    auto* r = new ResourceRegistry();
    RegisterCoreResources(*r);
    RegisterDraResources(*r);
    RegisterKoordinatorResources(*r);
    return r;
  }();
  return *registry;
}

void RegisterBuiltinTypes(Scheme& scheme) {
  for (const ResourceInfo& r : ResourceRegistry::Default().All()) scheme.Add(*r.type);
  // Kinds that are bodies of subresources rather than resources of their own are added by
  // their files (e.g. Binding) through RegisterSubresourceKinds.
  RegisterSubresourceKinds(scheme);
}

}  // namespace allot::api

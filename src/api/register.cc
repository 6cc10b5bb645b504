#include "api/core.h"
#include "api/resources.h"
#include "api/scheme.h"

namespace allot::api {

void RegisterBuiltinTypes(Scheme& scheme) {
  for (const ResourceInfo& r : ResourceRegistry::Default().All()) scheme.Add(*r.type);
  // Kinds that are bodies of subresources rather than resources of their own are added by
  // their files (e.g. Binding) through RegisterSubresourceKinds.
  RegisterSubresourceKinds(scheme);
}

}  // namespace allot::api

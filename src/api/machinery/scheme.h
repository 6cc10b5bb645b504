// The registry of API kinds: (apiVersion, kind) -> TypeInfo.
#pragma once

#include <string_view>
#include <vector>

#include "api/machinery/object.h"

namespace allot::api {

class Scheme {
 public:
  // Every kind Allot serves. Built once, immutable, thread-safe.
  static const Scheme& Default();

  void Add(const TypeInfo& type);
  const TypeInfo* Find(std::string_view api_version, std::string_view kind) const;
  const std::vector<const TypeInfo*>& All() const { return types_; }

 private:
  std::vector<const TypeInfo*> types_;
};

// Registers the built-in kinds (api/register.cc lists them).
void RegisterBuiltinTypes(Scheme& scheme);
// Kinds that are only subresource bodies (Binding, ...); defined in api/core/types.cc.
void RegisterSubresourceKinds(Scheme& scheme);

}  // namespace allot::api

// The key of an object in the store's index of its resource: "<namespace>/<name>", or the name
// alone for a cluster-scoped resource. Keys sort by namespace first, so a namespace's objects
// are one range of the index.
#pragma once

#include <string>
#include <string_view>

#include "api/machinery/resources.h"

namespace allot::store {

inline std::string ObjectKey(const api::ResourceInfo& r, std::string_view ns,
                             std::string_view name) {
  if (!r.namespaced) return std::string(name);
  std::string k(ns);
  k += '/';
  k.append(name);
  return k;
}

}  // namespace allot::store

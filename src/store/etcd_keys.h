// Where objects live in etcd, laid out as kube-apiserver lays them out, so that an operator's
// `etcdctl get /registry/pods/default/web-0` finds what they expect:
//
//   Kubernetes' own groups (core, and groups that are one word or end in ".k8s.io")
//       /registry/<resource>/<namespace>/<name>       /registry/pods/default/web-0
//                                                     /registry/resourceclaims/default/gpu
//       /registry/<resource>/<name>                   /registry/nodes/node-1
//   other groups (custom resources, Koordinator's reservations)
//       /registry/<group>/<resource>/... /registry/scheduling.koordinator.sh/reservations/r
//
// A resource name served by two Kubernetes groups would be ambiguous unqualified: both then use
// the group form. The store's own keys are "<group|core>/<resource>/<object key>"; this maps
// between the two (below the prefix).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "api/machinery/resources.h"

namespace allot::store {

class EtcdKeyLayout {
 public:
  explicit EtcdKeyLayout(const api::ResourceRegistry& registry);

  // "core/pods/default/p" -> "pods/default/p".
  std::string ToEtcd(std::string_view store_key) const;
  // "pods/default/p" -> "core/pods/default/p"; nullopt for a key that is no object this build
  // serves (another program's key under the prefix, a resource no longer served).
  std::optional<std::string> ToStore(std::string_view etcd_key) const;

 private:
  // Unqualified resource name -> its group ("core" for the core group).
  std::unordered_map<std::string, std::string> short_;
  std::unordered_set<std::string> ambiguous_;
  std::unordered_set<std::string> groups_;  // every group, "core" for the core group
};

}  // namespace allot::store

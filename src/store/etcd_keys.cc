#include "store/etcd_keys.h"

namespace allot::store {

namespace {

// Groups whose resources kube-apiserver stores without the group in the key.
bool IsKubernetesGroup(std::string_view group) {
  constexpr std::string_view kSuffix = ".k8s.io";
  return group.find('.') == std::string_view::npos ||
         (group.size() > kSuffix.size() && group.substr(group.size() - kSuffix.size()) == kSuffix);
}

}  // namespace

EtcdKeyLayout::EtcdKeyLayout(const api::ResourceRegistry& registry) {
  for (const api::ResourceInfo& r : registry.All()) {
    const std::string group = r.group.empty() ? "core" : r.group;
    groups_.insert(group);
    if (!IsKubernetesGroup(r.group)) continue;
    auto [it, added] = short_.emplace(r.resource, group);
    if (!added && it->second != group) ambiguous_.insert(r.resource);
  }
  for (const std::string& r : ambiguous_) short_.erase(r);
}

std::string EtcdKeyLayout::ToEtcd(std::string_view store_key) const {
  const size_t slash = store_key.find('/');
  if (slash == std::string_view::npos) return std::string(store_key);
  const std::string_view rest = store_key.substr(slash + 1);  // <resource>/<object key>
  const size_t end = rest.find('/');
  auto it = short_.find(std::string(rest.substr(0, end)));
  if (it != short_.end() && it->second == store_key.substr(0, slash)) return std::string(rest);
  return std::string(store_key);
}

std::optional<std::string> EtcdKeyLayout::ToStore(std::string_view etcd_key) const {
  const size_t slash = etcd_key.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string first(etcd_key.substr(0, slash));
  auto it = short_.find(first);
  if (it != short_.end()) return it->second + "/" + std::string(etcd_key);
  // The group form. Groups of more than one word have dots; resource names never do.
  if (first.find('.') != std::string::npos || groups_.count(first)) {
    return std::string(etcd_key);
  }
  return std::nullopt;
}

}  // namespace allot::store

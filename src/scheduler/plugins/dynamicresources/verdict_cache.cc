#include "scheduler/plugins/dynamicresources/verdict_cache.h"

namespace allot::scheduler {

namespace {

const std::vector<dra::DeviceIndex> kNone;

bool SameVersions(const VerdictCache::Verdict& a, const VerdictCache::Verdict& b) {
  return a.node_gen == b.node_gen && a.shared_gen == b.shared_gen &&
         a.node_version == b.node_version;
}

}  // namespace

const VerdictCache::NodeVerdicts* VerdictCache::Class::ForNode(uint32_t index,
                                                               std::string_view node) const {
  if (index >= by_index.size()) return nullptr;
  const NodeVerdicts& kept = by_index[index];
  return kept.node == node ? &kept : nullptr;
}

const VerdictCache::Verdict* VerdictCache::Class::Find(uint32_t index, std::string_view node,
                                                       const std::string& node_version,
                                                       uint64_t node_gen, uint64_t shared_gen,
                                                       const dra::HeldDevices* held) const {
  const NodeVerdicts* kept = ForNode(index, node);
  return kept ? kept->Find(node_version, node_gen, shared_gen, held) : nullptr;
}

const VerdictCache::Verdict* VerdictCache::NodeVerdicts::Find(const std::string& node_version,
                                                              uint64_t node_gen,
                                                              uint64_t shared_gen,
                                                              const dra::HeldDevices* held) const {
  const std::vector<dra::DeviceIndex>& usable = held ? held->devices : kNone;
  const std::vector<dra::DeviceIndex>& taken = held ? held->taken : kNone;
  for (const Verdict& v : verdicts) {
    if (v.node_gen == node_gen && v.shared_gen == shared_gen && v.node_version == node_version &&
        v.usable == usable && v.taken == taken) {
      return &v;
    }
  }
  return nullptr;
}

std::shared_ptr<VerdictCache::Class> VerdictCache::Lookup(
    const std::shared_ptr<const dra::Inventory>& inventory,
    const std::vector<const api::ResourceClaimSpec*>& specs, bool admin_access,
    uint64_t classes_gen) {
  for (size_t i = classes_.size(); i-- > 0;) {
    Class& c = *classes_[i];
    if (c.inventory != inventory || c.admin_access != admin_access ||
        c.classes_gen != classes_gen || c.specs.size() != specs.size()) {
      continue;
    }
    bool same = true;
    for (size_t k = 0; k < specs.size() && same; ++k) same = c.specs[k] == *specs[k];
    if (!same) continue;
    std::shared_ptr<Class> found = classes_[i];
    classes_.erase(classes_.begin() + static_cast<std::ptrdiff_t>(i));
    classes_.push_back(found);
    return found;
  }
  // Classes of an older inventory or class generation can never match again.
  std::erase_if(classes_, [&](const std::shared_ptr<Class>& c) {
    return c->inventory != inventory || c->classes_gen != classes_gen;
  });
  if (classes_.size() >= max_classes_) classes_.erase(classes_.begin());
  auto c = std::make_shared<Class>();
  c->inventory = inventory;
  for (const api::ResourceClaimSpec* s : specs) c->specs.push_back(*s);
  c->admin_access = admin_access;
  c->classes_gen = classes_gen;
  classes_.push_back(c);
  return c;
}

void VerdictCache::Record(Class& c, std::vector<std::pair<NodeKey, Verdict>>& fresh) {
  for (auto& [node, v] : fresh) {
    if (node.index >= c.by_index.size()) c.by_index.resize(node.index + 1);
    NodeVerdicts& entry = c.by_index[node.index];
    if (entry.node != node.name) entry = NodeVerdicts{.node = std::move(node.name)};  // reused
    entry.slot = v.slot;
    std::vector<Verdict>& kept = entry.verdicts;
    // Versions only move forward: verdicts of other versions can never match again.
    std::erase_if(kept, [&](const Verdict& k) {
      return !SameVersions(k, v) || (k.usable == v.usable && k.taken == v.taken);
    });
    if (kept.size() >= kVerdictsPerNode) kept.erase(kept.begin());
    kept.push_back(std::move(v));
  }
  fresh.clear();
}

}  // namespace allot::scheduler

// Allocator::Allocate's entry point and the AllocationResults built from a solution:
// results, configuration and node selector, as kube-scheduler's allocator writes them.
#include <algorithm>
#include <map>
#include <set>

#include "api/resource/node_pinning.h"
#include "dra/allocator_internal.h"
#include "dra/allocator_search.h"

namespace allot::dra {
namespace {

bool SameRequirement(const api::NodeSelectorRequirement& a, const api::NodeSelectorRequirement& b) {
  if (a.key != b.key || a.operator_ != b.operator_) return false;
  return std::set<std::string>(a.values.begin(), a.values.end()) ==
         std::set<std::string>(b.values.begin(), b.values.end());
}

void AddRequirements(const std::vector<api::NodeSelectorRequirement>& from,
                     std::vector<api::NodeSelectorRequirement>& to) {
  for (const api::NodeSelectorRequirement& r : from) {
    if (std::none_of(to.begin(), to.end(), [&](const api::NodeSelectorRequirement& t) {
          return SameRequirement(r, t);
        })) {
      to.push_back(r);
    }
  }
}

// createNodeSelector: node-local or bindsToNode devices pin the node; otherwise the one-term
// selectors of all devices merge into one term; allNodes devices add nothing.
std::optional<api::NodeSelector> NodeSelectorFor(const Inventory& inv,
                                                 const std::vector<Pick>& picks,
                                                 const std::string& node) {
  api::NodeSelectorTerm merged;
  for (const Pick& p : picks) {
    const Inventory::DeviceInfo& info = inv.info(p.device);
    if (info.node_name != nullptr || info.binds_to_node) return api::PinnedTo(node);
    if (info.node_selector == nullptr) continue;
    const std::vector<api::NodeSelectorTerm>& terms = info.node_selector->nodeSelectorTerms;
    if (terms.size() != 1) return api::PinnedTo(node);  // validation allows one term only
    AddRequirements(terms[0].matchFields, merged.matchFields);
    AddRequirements(terms[0].matchExpressions, merged.matchExpressions);
  }
  if (merged.matchFields.empty() && merged.matchExpressions.empty()) return std::nullopt;
  api::NodeSelector sel;
  sel.nodeSelectorTerms.push_back(std::move(merged));
  return sel;
}

// Class configuration once per class (listing every request that used it), then the claim's
// configuration that applies to the requests or chosen subrequests; a list naming as many
// requests as the claim has is cleared ("empty means all").
std::vector<api::DeviceAllocationConfiguration> ConfigFor(const Allocator::Impl& impl,
                                                          const ClaimInfo& claim,
                                                          const std::vector<uint32_t>& chosen) {
  std::vector<api::DeviceAllocationConfiguration> out;
  std::map<std::string, std::pair<size_t, size_t>> by_class;  // class -> [begin, end) in out
  for (uint32_t r : claim.requests) {
    const Alternative& alt = impl.alternatives[chosen[r]];
    const api::DeviceClass& cls = *alt.device_class;
    auto it = by_class.find(cls.metadata.name);
    if (it != by_class.end()) {
      for (size_t i = it->second.first; i < it->second.second; ++i) {
        out[i].requests.push_back(alt.name);
      }
      continue;
    }
    const size_t begin = out.size();
    for (const api::DeviceClassConfiguration& c : cls.spec.config) {
      api::DeviceAllocationConfiguration& cfg = out.emplace_back();
      cfg.source = std::string(api::kAllocationConfigSourceClass);
      cfg.requests = {alt.name};
      cfg.opaque = c.opaque;
    }
    by_class.emplace(cls.metadata.name, std::make_pair(begin, out.size()));
  }
  for (const api::DeviceClaimConfiguration& c : claim.claim->spec.devices.config) {
    bool applies = c.requests.empty();
    for (uint32_t r : claim.requests) {
      if (applies) break;
      const std::string& name = impl.requests[r].spec->name;
      const std::string& used = impl.alternatives[chosen[r]].name;
      applies = std::find(c.requests.begin(), c.requests.end(), name) != c.requests.end() ||
                std::find(c.requests.begin(), c.requests.end(), used) != c.requests.end();
    }
    if (!applies) continue;
    api::DeviceAllocationConfiguration& cfg = out.emplace_back();
    cfg.source = std::string(api::kAllocationConfigSourceClaim);
    cfg.requests = c.requests;
    cfg.opaque = c.opaque;
  }
  for (api::DeviceAllocationConfiguration& cfg : out) {
    if (cfg.requests.size() == claim.requests.size()) cfg.requests.clear();
  }
  return out;
}

uint64_t Fnv1a(std::string_view s, uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

std::string MakeShareID(const api::ResourceClaim& claim, size_t result_index) {
  std::string seed = claim.metadata.uid.empty()
                         ? claim.metadata.namespace_ + "/" + claim.metadata.name
                         : claim.metadata.uid;
  seed += "#" + std::to_string(result_index);
  uint64_t hi = Fnv1a(seed, 0xcbf29ce484222325ULL);
  uint64_t lo = Fnv1a(seed, hi ^ 0x84222325cbf29ce4ULL);
  // RFC 4122 layout: version 5 (name-based), variant 10xx.
  hi = (hi & ~0xf000ULL) | 0x5000ULL;
  lo = (lo & ~(0xc000ULL << 48)) | (0x8000ULL << 48);
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

std::vector<api::AllocationResult> BuildResults(const Allocator::Impl& impl,
                                                const Solution& solution, const api::Node& node) {
  const Inventory& inv = *impl.inventory;
  std::vector<api::AllocationResult> out(impl.claims.size());
  for (size_t c = 0; c < impl.claims.size(); ++c) {
    const ClaimInfo& claim = impl.claims[c];
    api::AllocationResult& result = out[c];
    const std::vector<Pick>& picks = solution.claims[c];
    result.devices.results.reserve(picks.size());
    for (size_t k = 0; k < picks.size(); ++k) {
      const Pick& p = picks[k];
      const Alternative& alt = impl.alternatives[p.alternative];
      const Inventory::DeviceRef& ref = inv.device(p.device);
      const Inventory::DeviceInfo& info = inv.info(p.device);
      api::DeviceRequestAllocationResult& r = result.devices.results.emplace_back();
      r.request = alt.name;
      r.driver = std::string(ref.driver);
      r.pool = std::string(ref.pool);
      r.device = std::string(ref.name);
      // The rare fields (api/machinery/rare.h) are written only when set, so a plain device
      // allocates none of them.
      if (alt.admin) r.rare.edit().adminAccess = true;
      r.rare.set(&api::DeviceRequestAllocationResultRare::tolerations, *alt.tolerations);
      if (impl.features.binding_conditions) {
        r.rare.set(&api::DeviceRequestAllocationResultRare::bindingConditions,
                   *info.binding_conditions);
        r.rare.set(&api::DeviceRequestAllocationResultRare::bindingFailureConditions,
                   *info.binding_failure_conditions);
      }
      if (p.shared) {
        r.rare.edit().shareID = MakeShareID(*claim.claim, k);
        const std::vector<api::Quantity>* amounts = impl.sets[alt.candidates]->Share(p.device);
        size_t i = 0;
        for (const auto& [name, cap] : ref.device->capacity) {
          r.rare.edit().consumedCapacity.emplace(
              name, amounts && i < amounts->size() ? (*amounts)[i] : api::Quantity());
          ++i;
        }
      }
    }
    result.devices.config = ConfigFor(impl, claim, solution.chosen);
    result.nodeSelector = NodeSelectorFor(inv, picks, node.metadata.name);
  }
  return out;
}

Allocator::Outcome Allocator::Allocate(const api::Node& node, const AllocatedState& in_use,
                                       const HeldDevices* held) const {
  if (in_use.inventory() != impl_->inventory.get() && !in_use.empty()) {
    AllocatedState rebased = in_use;
    rebased.Rebase(impl_->inventory);
    return Search(*impl_, node, rebased, held).Run();
  }
  return Search(*impl_, node, in_use, held).Run();
}

Allocator::Outcome Allocator::Check(const api::Node& node, const AllocatedState& in_use,
                                    const HeldDevices* held) const {
  if (in_use.inventory() != impl_->inventory.get() && !in_use.empty()) {
    AllocatedState rebased = in_use;
    rebased.Rebase(impl_->inventory);
    return Search(*impl_, node, rebased, held, false).Run();
  }
  return Search(*impl_, node, in_use, held, false).Run();
}

}  // namespace allot::dra

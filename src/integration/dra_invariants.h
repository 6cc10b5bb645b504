// Invariants of DRA allocation, checked over the final state and over every claim write.
//
//   AllocationAuditor audit;            // fed by a claim watch from the start of the test
//   audit.OnClaim(event) ...
//   EXPECT_THAT(audit.violations(), IsEmpty());
//   EXPECT_THAT(CheckFinalState(claims, pods, nodes), IsEmpty());
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "api/core/types.h"
#include "api/koordinator/reservation.h"
#include "api/machinery/selector.h"
#include "api/resource/types.h"

namespace allot::integration {

using DeviceId = std::tuple<std::string, std::string, std::string>;  // driver, pool, device

// Tracks, event by event, which claim holds each device. A device allocated (without admin
// access) to a second claim while the first still holds it is a violation — except that a
// device a Reservation holds (its claim's reservedFor names the reservation) may also be
// allocated to one other claim, an owner's: the reservation hands it over, it is one use
// (docs/reservations.md, "Devices"). Two reservations, or two other claims, on one device are
// violations.
class AllocationAuditor {
 public:
  void OnClaim(const api::ResourceClaim& claim, bool deleted) {
    const std::string& uid = claim.metadata.uid;
    Release(uid);
    if (deleted || !claim.status.allocation) return;
    bool reservation = false;
    for (const auto& c : claim.status.reservedFor) reservation |= api::IsReservationConsumer(c);
    auto& holders = reservation ? reserved_ : holder_;
    for (const auto& r : claim.status.allocation->devices.results) {
      if (r.rare->adminAccess.value_or(false) || r.rare->shareID) continue;
      DeviceId id{r.driver, r.pool, r.device};
      auto [it, inserted] = holders.emplace(id, uid);
      if (!inserted && it->second != uid) {
        violations_.push_back("device " + r.driver + "/" + r.pool + "/" + r.device +
                              " allocated to claim " + claim.metadata.name +
                              " while held by claim uid " + it->second);
      }
      held_[uid].push_back(id);
    }
    ++allocations_seen_;
  }
  const std::vector<std::string>& violations() const { return violations_; }
  size_t allocations_seen() const { return allocations_seen_; }

 private:
  void Release(const std::string& uid) {
    auto it = held_.find(uid);
    if (it == held_.end()) return;
    for (const DeviceId& id : it->second) {
      for (auto* holders : {&holder_, &reserved_}) {
        auto h = holders->find(id);
        if (h != holders->end() && h->second == uid) holders->erase(h);
      }
    }
    held_.erase(it);
  }
  std::map<DeviceId, std::string> holder_;    // claims of pods
  std::map<DeviceId, std::string> reserved_;  // claims of reservations
  std::map<std::string, std::vector<DeviceId>> held_;
  std::vector<std::string> violations_;
  size_t allocations_seen_ = 0;
};

// The final state: no device in two claims; every bound pod's claims are allocated, reserved
// for it, and usable on its node.
inline std::vector<std::string> CheckFinalState(
    const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
    const std::vector<std::shared_ptr<const api::Pod>>& pods,
    const std::vector<std::shared_ptr<const api::Node>>& nodes) {
  std::vector<std::string> out;
  AllocationAuditor audit;
  std::map<std::string, const api::ResourceClaim*> by_name;
  for (const auto& c : claims) {
    audit.OnClaim(*c, false);
    by_name[c->metadata.namespace_ + "/" + c->metadata.name] = c.get();
  }
  out = audit.violations();
  std::map<std::string, const api::Node*> node_by_name;
  for (const auto& n : nodes) node_by_name[n->metadata.name] = n.get();
  for (const auto& p : pods) {
    if (p->spec.nodeName.empty()) continue;
    for (const auto& ref : p->spec.resourceClaims) {
      std::string name;
      if (ref.resourceClaimName) {
        name = *ref.resourceClaimName;
      } else {
        for (const auto& s : p->status.resourceClaimStatuses) {
          if (s.name == ref.name && s.resourceClaimName) name = *s.resourceClaimName;
        }
      }
      std::string pod = p->metadata.namespace_ + "/" + p->metadata.name;
      if (name.empty()) {
        out.push_back("bound pod " + pod + " has no claim for " + ref.name);
        continue;
      }
      auto it = by_name.find(p->metadata.namespace_ + "/" + name);
      if (it == by_name.end()) {
        out.push_back("bound pod " + pod + ": claim " + name + " missing");
        continue;
      }
      const api::ResourceClaim& c = *it->second;
      if (!c.status.allocation) {
        out.push_back("bound pod " + pod + ": claim " + name + " not allocated");
        continue;
      }
      bool reserved = false;
      for (const auto& r : c.status.reservedFor) reserved |= r.uid == p->metadata.uid;
      if (!reserved) out.push_back("bound pod " + pod + ": claim " + name + " not reserved");
      const auto& sel = c.status.allocation->nodeSelector;
      auto n = node_by_name.find(p->spec.nodeName);
      if (sel && n != node_by_name.end() &&
          !api::MatchesNodeSelector(*sel, n->second->metadata.labels, p->spec.nodeName)) {
        out.push_back("bound pod " + pod + ": claim " + name + " not usable on node " +
                      p->spec.nodeName);
      }
    }
  }
  return out;
}

}  // namespace allot::integration

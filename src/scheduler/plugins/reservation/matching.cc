#include "scheduler/plugins/reservation/matching.h"

#include <algorithm>

#include "api/core/taints.h"

namespace allot::scheduler::reservation {

namespace {

constexpr std::string_view kTaintUnschedulable = "node.kubernetes.io/unschedulable";

// Requests against free capacity on every resource the pod asks for.
void CheckFree(const Resource& want, const Resource& free, std::vector<std::string>* reasons,
               bool& ok, std::string_view prefix = {}) {
  auto check = [&](std::string_view name, int64_t w, int64_t f) {
    if (w <= 0 || w <= f) return;
    ok = false;
    if (reasons) reasons->push_back(std::string(prefix) + "Insufficient " + std::string(name));
  };
  check(kResourceCpu, want.milli_cpu, free.milli_cpu);
  check(kResourceMemory, want.memory, free.memory);
  check(kResourceEphemeralStorage, want.ephemeral_storage, free.ephemeral_storage);
  for (const auto& [name, v] : want.scalars) check(name, v, free.Scalar(name));
}

Resource FreeOf(const NodeInfo& node, const Resource& extra_held) {
  Resource free = node.allocatable();
  free.Sub(node.requested());
  free.Sub(extra_held);
  return free;
}

}  // namespace

// --- the pod's preferences ----------------------------------------------------------------------

Result<PodReservationPrefs> PodReservationPrefs::Parse(const api::Pod& pod) {
  // Keys made once: the maps take std::string, and this runs for every pod.
  static const std::string kIgnored(api::kLabelReservationIgnored);
  static const std::string kAffinity(api::kAnnotationReservationAffinity);
  static const std::string kExactMatch(api::kAnnotationExactMatchReservation);
  PodReservationPrefs p;
  auto ignored = pod.metadata.labels.find(kIgnored);
  p.ignored = ignored != pod.metadata.labels.end() && ignored->second == "true";
  const api::StringMap& ann = pod.metadata.annotations;
  if (auto it = ann.find(kAffinity); it != ann.end()) {
    ALLOT_ASSIGN_OR_RETURN(api::ReservationAffinity a, api::ParseReservationAffinity(it->second));
    p.affinity = std::move(a);
  }
  if (auto it = ann.find(kExactMatch); it != ann.end()) {
    ALLOT_ASSIGN_OR_RETURN(api::ExactMatchReservationSpec e,
                           api::ParseExactMatchReservation(it->second));
    p.exact_match = std::move(e.resourceNames);
  }
  return p;
}

bool PodReservationPrefs::Admits(const ReservationInfo& r, const api::StringMap* node_labels,
                                 const Resource& requests, std::string* reason) const {
  auto no = [&](const char* why) {
    if (reason) *reason = why;
    return false;
  };
  const std::vector<api::Toleration> none;
  const std::vector<api::Toleration>& tolerations = affinity ? affinity->tolerations : none;
  if (affinity && !affinity->name.empty()) {
    if (affinity->name != r.name) return no("reservation affinity names another reservation");
  } else {
    if (r.unschedulable) {
      api::Taint t{.key = std::string(kTaintUnschedulable), .effect = "NoSchedule"};
      if (!api::TolerationsTolerateTaint(tolerations, t)) return no("reservation is unschedulable");
    }
    for (const api::Taint& t : r.object->spec.taints) {
      if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
      if (!api::TolerationsTolerateTaint(tolerations, t)) {
        return no("reservation has a taint the pod does not tolerate");
      }
    }
    if (affinity) {
      api::StringMap labels = node_labels ? *node_labels : api::StringMap{};
      for (const auto& [k, v] : r.object->metadata.labels) labels[k] = v;
      for (const auto& [k, v] : affinity->reservationSelector) {
        auto it = labels.find(k);
        if (it == labels.end() || it->second != v) return no("reservation affinity does not match");
      }
      if (affinity->requiredDuringSchedulingIgnoredDuringExecution) {
        api::NodeSelector sel;
        sel.nodeSelectorTerms =
            affinity->requiredDuringSchedulingIgnoredDuringExecution->reservationSelectorTerms;
        if (!sel.nodeSelectorTerms.empty() && !api::MatchesNodeSelector(sel, labels, r.name)) {
          return no("reservation affinity does not match");
        }
      }
    }
  }
  if (exact_match && !ExactMatches(*exact_match, requests, r.allocatable)) {
    return no("reservation does not exactly match the pod's requests");
  }
  return true;
}

bool ExactMatches(const std::vector<std::string>& names, const Resource& requests,
                  const Resource& allocatable) {
  for (const std::string& n : names) {
    if (requests.Get(n) != allocatable.Get(n)) return false;
  }
  return true;
}

// --- fit ----------------------------------------------------------------------------------------

bool FitsReservation(const Resource& requests, const NodeInfo& node, const ReservedSlot& slot,
                     const Resource& others_held, std::vector<std::string>* reasons) {
  bool ok = true;
  CheckFree(requests, FreeOf(node, others_held), reasons, ok);
  if (slot.info->policy == AllocatePolicy::kRestricted) {
    Resource remaining = slot.Remaining();
    for (const std::string& name : slot.info->restricted_resources) {
      int64_t want = requests.Get(name);
      if (want > remaining.Get(name)) {
        ok = false;
        if (reasons) reasons->push_back("Reservation(s) Insufficient " + name);
      }
    }
  }
  return ok;
}

bool FitsNodeAlone(const Resource& requests, const NodeInfo& node, const Resource& held,
                   std::vector<std::string>* reasons) {
  bool ok = true;
  CheckFree(requests, FreeOf(node, held), reasons, ok);
  return ok;
}

int64_t MostAllocatedScore(const Resource& requests, const ReservedSlot& slot) {
  const Resource& a = slot.info->allocatable;
  int64_t sum = 0;
  int64_t n = 0;
  auto one = [&](int64_t alloc, int64_t want, int64_t used) {
    if (alloc <= 0) return;
    ++n;
    int64_t total = want + used;
    if (total <= alloc) sum += total * kMaxNodeScore / alloc;
  };
  one(a.milli_cpu, requests.milli_cpu, slot.allocated.milli_cpu);
  one(a.memory, requests.memory, slot.allocated.memory);
  one(a.ephemeral_storage, requests.ephemeral_storage, slot.allocated.ephemeral_storage);
  for (const auto& [name, v] : a.scalars)
    one(v, requests.Scalar(name), slot.allocated.Scalar(name));
  return n ? sum / n : 0;
}

bool SharesResource(const Resource& requests, const Resource& allocatable) {
  if ((requests.milli_cpu && allocatable.milli_cpu) || (requests.memory && allocatable.memory) ||
      (requests.ephemeral_storage && allocatable.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, v] : requests.scalars) {
    if (v && allocatable.Scalar(name)) return true;
  }
  return false;
}

}  // namespace allot::scheduler::reservation

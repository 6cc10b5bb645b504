#include "scheduler/plugins/defaultpreemption/victims.h"

#include <algorithm>
#include <limits>

namespace allot::scheduler::preemption {

namespace {

Time StartTime(const PodInfo& p, Time now) {
  const auto& t = p.pod->status.startTime;
  return t ? *t : now;
}

}  // namespace

bool MoreImportant(const PodInfo& a, const PodInfo& b, Time now) {
  if (a.priority != b.priority) return a.priority > b.priority;
  return StartTime(a, now) < StartTime(b, now);
}

void SplitByBudgets(std::span<const PodInfoPtr> pods, const std::vector<Budget>& budgets,
                    std::vector<PodInfoPtr>& violating, std::vector<PodInfoPtr>& non_violating) {
  std::vector<int32_t> allowed;
  allowed.reserve(budgets.size());
  for (const Budget& b : budgets) allowed.push_back(b.disruptions_allowed);
  for (const PodInfoPtr& p : pods) {
    bool violates = false;
    const api::ObjectMeta& meta = p->pod->metadata;
    if (!meta.labels.empty()) {
      for (size_t i = 0; i < budgets.size(); ++i) {
        const Budget& b = budgets[i];
        if (b.namespace_ != meta.namespace_ || b.selector.Empty() ||
            !b.selector.Matches(meta.labels)) {
          continue;
        }
        if (b.disrupted.count(meta.name)) continue;  // already spent on this pod
        if (--allowed[i] < 0) violates = true;
      }
    }
    (violates ? violating : non_violating).push_back(p);
  }
}

namespace {

bool IsPotentialVictim(const PodInfo& p, const PodInfo& preemptor) {
  return p.priority < preemptor.priority && !p.IsReservePod();
}

}  // namespace

bool HasPotentialVictims(const NodeInfo& node, const PodInfo& pod) {
  for (const PodInfoPtr& p : node.pods()) {
    if (IsPotentialVictim(*p, pod)) return true;
  }
  return false;
}

Status SelectVictimsOnNode(const Handle& fw, CycleState& state, const PodInfo& pod, NodeInfo& node,
                           const std::vector<Budget>& budgets, const NominatedPods* nominated,
                           Time now, Victims& out) {
  out = Victims{};
  std::vector<PodInfoPtr> potential;
  for (const PodInfoPtr& p : node.pods()) {
    if (IsPotentialVictim(*p, pod)) potential.push_back(p);
  }
  if (potential.empty()) {
    return Status(Code::kUnschedulableAndUnresolvable, std::string(kNoVictims));
  }
  for (const PodInfoPtr& p : potential) {
    node.RemovePod(p->uid());
    Status st = fw.RunPreFilterExtensionRemovePod(state, pod, *p, node);
    if (!st.IsSuccess()) return st;
  }
  Status fits = fw.RunFilterPluginsWithNominatedPods(state, pod, node, nominated);
  if (!fits.IsSuccess()) return fits;

  std::sort(potential.begin(), potential.end(),
            [now](const PodInfoPtr& a, const PodInfoPtr& b) { return MoreImportant(*a, *b, now); });
  std::vector<PodInfoPtr> violating, non_violating;
  SplitByBudgets(potential, budgets, violating, non_violating);
  // Adds `p` back; when the preemptor no longer fits, it goes again and stays a victim.
  auto reprieve = [&](const PodInfoPtr& p) -> Result<bool> {
    node.AddPod(p);
    Status st = fw.RunPreFilterExtensionAddPod(state, pod, *p, node);
    if (!st.IsSuccess()) return allot::InternalError(st.Message());
    Status fit = fw.RunFilterPluginsWithNominatedPods(state, pod, node, nominated);
    if (fit.IsError()) return allot::InternalError(fit.Message());
    if (fit.IsSuccess()) return true;
    node.RemovePod(p->uid());
    st = fw.RunPreFilterExtensionRemovePod(state, pod, *p, node);
    if (!st.IsSuccess()) return allot::InternalError(st.Message());
    out.pods.push_back(p);
    return false;
  };
  for (const PodInfoPtr& p : violating) {
    auto kept = reprieve(p);
    if (!kept.ok()) return Status(Code::kError, kept.status().message());
    if (!*kept) ++out.pdb_violations;
  }
  for (const PodInfoPtr& p : non_violating) {
    auto kept = reprieve(p);
    if (!kept.ok()) return Status(Code::kError, kept.status().message());
  }
  if (!violating.empty() && !non_violating.empty()) {
    std::sort(out.pods.begin(), out.pods.end(), [now](const PodInfoPtr& a, const PodInfoPtr& b) {
      return MoreImportant(*a, *b, now);
    });
  }
  return Status::Success();
}

size_t PickOneNode(std::span<const Candidate> candidates, Time now) {
  std::vector<size_t> left(candidates.size());
  for (size_t i = 0; i < left.size(); ++i) left[i] = i;
  // Keeps the candidates with the highest score.
  auto keep_best = [&](auto score) {
    if (left.size() <= 1) return;
    std::vector<size_t> best;
    auto best_score = score(candidates[left[0]]);
    for (size_t i : left) {
      auto s = score(candidates[i]);
      if (s > best_score) {
        best_score = s;
        best.clear();
      }
      if (s == best_score) best.push_back(i);
    }
    left = std::move(best);
  };
  const auto& victims = [](const Candidate& c) -> const std::vector<PodInfoPtr>& {
    return c.victims.pods;
  };
  keep_best([](const Candidate& c) { return -static_cast<int64_t>(c.victims.pdb_violations); });
  keep_best([&](const Candidate& c) {
    return victims(c).empty() ? std::numeric_limits<int64_t>::max()
                              : -static_cast<int64_t>(victims(c)[0]->priority);
  });
  keep_best([&](const Candidate& c) {
    int64_t sum = 0;  // each priority shifted to be non-negative
    for (const PodInfoPtr& p : victims(c)) {
      sum += static_cast<int64_t>(p->priority) + std::numeric_limits<int32_t>::max() + 1;
    }
    return -sum;
  });
  keep_best([&](const Candidate& c) { return -static_cast<int64_t>(victims(c).size()); });
  keep_best([&](const Candidate& c) {
    // The earliest start among the most important victims; the latest such wins.
    const auto& v = victims(c);
    if (v.empty()) return now.unix_micros;
    int64_t earliest = std::numeric_limits<int64_t>::max();
    for (const PodInfoPtr& p : v) {
      if (p->priority != v[0]->priority) continue;
      const auto& t = p->pod->status.startTime;
      earliest = std::min(earliest, (t ? *t : now).unix_micros);
    }
    return earliest;
  });
  return left[0];
}

}  // namespace allot::scheduler::preemption

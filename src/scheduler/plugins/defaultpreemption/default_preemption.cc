#include "scheduler/plugins/defaultpreemption/default_preemption.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_set>

#include "api/core/pod.h"
#include "api/core/strategy.h"
#include "api/machinery/resources.h"
#include "api/policy/pod_disruption_budget.h"
#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer_factory.h"
#include "common/log.h"
#include "scheduler/framework/diagnosis.h"
#include "scheduler/framework/parallel.h"
#include "scheduler/framework/pod_status_patch.h"
#include "scheduler/framework/waiting_pods.h"
#include "scheduler/metrics/metrics.h"
#include "scheduler/plugins/names.h"

namespace allot::scheduler {

namespace {

using preemption::Budget;
using preemption::Candidate;
using preemption::Victims;

constexpr std::string_view kDisruptionTarget = "DisruptionTarget";
constexpr std::string_view kReasonPreemptionByScheduler = "PreemptionByScheduler";

Result<int32_t> IntField(const rapidjson::Value& v, std::string_view key, int32_t lo, int32_t hi) {
  if (!v.IsInt() || v.GetInt() < lo || v.GetInt() > hi) {
    return allot::BadRequestError("DefaultPreemption args: " + std::string(key) +
                                  ": must be an integer in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "]");
  }
  return v.GetInt();
}

// A pod terminating because the scheduler preempted it.
bool TerminatingByPreemption(const api::Pod& pod) {
  if (!pod.metadata.rare->deletionTimestamp) return false;
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == kDisruptionTarget && c.status == "True" &&
        c.reason == kReasonPreemptionByScheduler) {
      return true;
    }
  }
  return false;
}

}  // namespace

Result<DefaultPreemptionArgs> ParseDefaultPreemptionArgs(std::string_view json) {
  DefaultPreemptionArgs args;
  if (json.empty()) return args;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return allot::BadRequestError("DefaultPreemption args: expected a JSON object");
  }
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (key == "apiVersion" || key == "kind") continue;
    if (key == "minCandidateNodesPercentage") {
      ALLOT_ASSIGN_OR_RETURN(args.min_candidate_nodes_percentage, IntField(it->value, key, 0, 100));
    } else if (key == "minCandidateNodesAbsolute") {
      ALLOT_ASSIGN_OR_RETURN(args.min_candidate_nodes_absolute,
                             IntField(it->value, key, 0, std::numeric_limits<int32_t>::max()));
    } else if (key == "reservationPreemption") {
      if (!it->value.IsBool()) {
        return allot::BadRequestError(
            "DefaultPreemption args: reservationPreemption: must be a boolean");
      }
      args.reservation_preemption = it->value.GetBool();
    } else if (key == "allowBudgetViolations") {
      if (!it->value.IsBool()) {
        return allot::BadRequestError(
            "DefaultPreemption args: allowBudgetViolations: must be a boolean");
      }
      args.allow_budget_violations = it->value.GetBool();
    } else {
      return allot::BadRequestError("DefaultPreemption args: unknown field \"" + std::string(key) +
                                    "\"");
    }
  }
  if (args.min_candidate_nodes_percentage == 0 && args.min_candidate_nodes_absolute == 0) {
    return allot::BadRequestError(
        "DefaultPreemption args: minCandidateNodesPercentage and minCandidateNodesAbsolute cannot "
        "be both zero");
  }
  return args;
}

DefaultPreemption::DefaultPreemption(Handle& handle, DefaultPreemptionArgs args)
    : handle_(handle), args_(args) {
  if (client::InformerFactory* f = handle_.informers()) {
    budgets_ = &f->For(api::ResourceFor<api::PodDisruptionBudget>());
  }
  if (SchedulerMetrics* m = handle_.metrics()) {
    attempts_ = &m->preemption_attempts.With({});
    victims_ = &m->preemption_victims.With({});
  }
}

std::string_view DefaultPreemption::Name() const { return names::kDefaultPreemption; }

int32_t DefaultPreemption::NumCandidates(int32_t num_nodes) const {
  int32_t n = static_cast<int32_t>(int64_t{num_nodes} * args_.min_candidate_nodes_percentage / 100);
  n = std::max(n, args_.min_candidate_nodes_absolute);
  return std::min(n, num_nodes);
}

std::string DefaultPreemption::Ineligible(const PodInfo& pod, const NodeToStatus& statuses) const {
  const std::optional<std::string>& policy = pod.pod->spec.preemptionPolicy;
  if (policy && *policy == "Never") return "not eligible due to preemptionPolicy=Never.";
  std::string nominated = pod.pod->status.nominatedNodeName;
  if (nominated.empty() && handle_.nominator()) nominated = handle_.nominator()->NodeOf(pod.uid());
  if (nominated.empty()) return {};
  for (const auto& [node, st] : statuses.explicit_statuses()) {
    if (node->name() == nominated && st.code() == Code::kUnschedulableAndUnresolvable) return {};
  }
  const NodeInfo* node = handle_.snapshot().Get(nominated);
  if (!node) return {};
  for (const PodInfoPtr& p : node->pods()) {
    if (p->priority < pod.priority && TerminatingByPreemption(*p->pod)) {
      return "not eligible due to a terminating pod on the nominated node.";
    }
  }
  return {};
}

std::vector<Budget> DefaultPreemption::Budgets() const {
  std::vector<Budget> out;
  if (!budgets_) return out;
  for (const api::ObjectPtr& obj : budgets_->List()) {
    const auto* pdb = api::As<api::PodDisruptionBudget>(*obj);
    if (!pdb || !pdb->spec.selector) continue;
    auto sel = api::LabelSelectorExpr::FromLabelSelector(*pdb->spec.selector);
    if (!sel.ok() || sel->Empty()) continue;
    Budget b;
    b.namespace_ = pdb->metadata.namespace_;
    b.selector = std::move(sel).value();
    b.disruptions_allowed = pdb->status.disruptionsAllowed;
    for (const auto& [name, when] : pdb->status.disruptedPods) b.disrupted.insert(name);
    out.push_back(std::move(b));
  }
  return out;
}

Status DefaultPreemption::PostFilter(CycleState& state, const PodInfo& pod,
                                     const NodeToStatus& statuses, PostFilterResult& result) {
  // Reservations preempt only when the args say so; their message stays Filter's then.
  if (pod.IsReservePod() && !args_.reservation_preemption) {
    return Status(Code::kUnschedulable, std::vector<std::string>{});
  }
  if (attempts_) attempts_->Inc();
  if (std::string why = Ineligible(pod, statuses); !why.empty()) {
    return Status(Code::kUnschedulable, "preemption: " + why);
  }
  const Snapshot& snapshot = handle_.snapshot();
  // Nodes where preemption may help: rejected as Unschedulable, not Unresolvable.
  std::vector<const NodeInfo*> potential;
  std::unordered_set<std::string_view> seen;
  for (const auto& [node, st] : statuses.explicit_statuses()) {
    seen.insert(node->name());
    if (st.code() == Code::kUnschedulable) potential.push_back(node);
  }
  if (statuses.absent().code() == Code::kUnschedulable) {
    for (const NodeInfo* n : snapshot.nodes()) {
      if (!seen.count(n->name())) potential.push_back(state.NodeView(n));
    }
  }
  Diagnosis diagnosis;
  diagnosis.node_to_status.set_absent(
      Status(Code::kUnschedulableAndUnresolvable, "Preemption is not helpful for scheduling"));
  std::vector<Candidate> candidates;
  if (!potential.empty()) {
    const std::vector<Budget> budgets = Budgets();
    std::shared_ptr<const NominatedPods> nominated;
    if (const Nominator* nom = handle_.nominator(); nom && !nom->empty()) {
      nominated = nom->Current();
    }
    const Time now = handle_.clock().Now();
    const int n = static_cast<int>(potential.size());
    const int32_t wanted = NumCandidates(n);
    const size_t offset = rng_() % potential.size();
    std::mutex mu;
    std::vector<std::pair<const NodeInfo*, Status>> failed;
    std::vector<Candidate> violating;
    std::atomic<bool> stop{false};
    int found_clean = 0, found_any = 0;  // guarded by mu
    handle_.parallelizer().Until(
        n,
        [&](int i) {
          const NodeInfo* base = potential[(offset + i) % potential.size()];
          // Most nodes usually hold nothing to preempt: say so before copying anything.
          if (!preemption::HasPotentialVictims(*base, pod)) {
            std::lock_guard<std::mutex> lock(mu);
            failed.emplace_back(base, Status(Code::kUnschedulableAndUnresolvable,
                                             std::string(preemption::kNoVictims)));
            return;
          }
          NodeInfo copy = *base;
          std::unique_ptr<CycleState> clone = state.Clone();
          Victims v;
          Status st = preemption::SelectVictimsOnNode(handle_, *clone, pod, copy, budgets,
                                                      nominated.get(), now, v);
          if (st.IsSuccess() && v.pods.empty()) {
            st = Status(Code::kError, "expected at least one victim pod on node " + base->name());
          }
          std::lock_guard<std::mutex> lock(mu);
          if (!st.IsSuccess()) {
            failed.emplace_back(base, std::move(st));
            return;
          }
          const bool clean_node = v.pdb_violations == 0;
          if (!clean_node && !args_.allow_budget_violations) {
            failed.emplace_back(
                base, Status(Code::kUnschedulable, std::string(preemption::kBudgetBlocks)));
            return;
          }
          (clean_node ? candidates : violating).push_back(Candidate{base->name(), std::move(v)});
          found_clean += clean_node;
          ++found_any;
          if (found_clean > 0 && found_any >= wanted) stop = true;
        },
        &stop);
    for (Candidate& c : violating) candidates.push_back(std::move(c));
    for (auto& [node, st] : failed) {
      if (st.IsError()) return st;
      diagnosis.node_to_status.Set(node, st);
    }
  }
  if (candidates.empty()) {
    result.nominated_node = std::string();  // clears an earlier nomination
    return Status(Code::kUnschedulable,
                  "preemption: " + FitErrorMessage(snapshot.NumNodes(), diagnosis));
  }
  const Candidate& best = candidates[preemption::PickOneNode(candidates, handle_.clock().Now())];
  Prepare(pod, best);
  if (victims_) victims_->Observe(static_cast<double>(best.victims.pods.size()));
  result.nominated_node = best.node;
  return Status::Success();
}

void DefaultPreemption::Prepare(const PodInfo& pod, const Candidate& c) {
  client::Client* client = handle_.client();
  static const api::ResourceInfo& pods = api::ResourceFor<api::Pod>();
  const std::string& scheduler_name = pod.pod->spec.schedulerName.empty()
                                          ? std::string(api::kDefaultSchedulerName)
                                          : pod.pod->spec.schedulerName.str();
  const std::string transition = handle_.clock().Now().ToRfc3339();
  const std::string disruption_message =
      scheduler_name + ": preempting to accommodate a higher priority pod";
  const PodConditionChange disruption{kDisruptionTarget, "True", kReasonPreemptionByScheduler,
                                      disruption_message, transition};
  const std::string preemptor =
      pod.IsReservePod() ? "reservation " + pod.name() : "pod " + pod.uid();
  for (const PodInfoPtr& v : c.victims.pods) {
    const api::Pod& victim = *v->pod;
    if (std::shared_ptr<WaitingPod> w = handle_.waiting_pods().Get(v->uid())) {
      w->Reject(names::kDefaultPreemption, "preempted");
      continue;
    }
    if (victim.metadata.rare->deletionTimestamp) continue;  // already going
    if (client) {
      const std::string& ns = victim.metadata.namespace_;
      const std::string& name = victim.metadata.name;
      client->PatchAsync(pods, ns, name, client::PatchKind::kStrategicMerge,
                         PodStatusPatch(&disruption, std::nullopt), /*status=*/true,
                         [](Result<api::ObjectPtr>) {});  // a victim gone already is fine
      api::DeleteOptions opts;
      opts.precondition_uid = victim.metadata.uid;
      client->DeleteAsync(pods, ns, name, std::move(opts), [](Result<api::DeleteResult>) {});
    }
    if (client::EventRecorder* events = handle_.events()) {
      events->Record(victim, client::kEventTypeNormal, "Preempted", "Preempting",
                     "Preempted by " + preemptor + " on node " + c.node);
    }
  }
  // Pods of lower priority nominated to this node would no longer fit there.
  if (Nominator* nom = handle_.nominator()) {
    for (const PodInfoPtr& p : nom->ForNode(c.node)) {
      if (p->priority >= pod.priority || p->uid() == pod.uid()) continue;
      nom->Remove(p->uid());
      if (client && !p->IsReservePod()) {
        client->PatchAsync(pods, p->namespace_(), p->name(), client::PatchKind::kStrategicMerge,
                           PodStatusPatch(nullptr, std::string()), /*status=*/true,
                           [](Result<api::ObjectPtr>) {});
      }
    }
  }
  if (log::V(2, "scheduler")) {
    log::Detail(2, "scheduler",
                "preempting " + std::to_string(c.victims.pods.size()) + " pod(s) on " + c.node +
                    " for " + pod.namespace_() + "/" + pod.name());
  }
}

}  // namespace allot::scheduler

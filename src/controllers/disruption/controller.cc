#include "controllers/disruption/controller.h"

#include <algorithm>

#include "api/core/types.h"
#include "api/machinery/resources.h"
#include "api/policy/pod_disruption_budget.h"
#include "controllers/disruption/rules.h"

namespace allot::controllers {

namespace {

// Index names are prefixed: the informers are shared with other components.
const std::string kBudgetNamespaceIndex = "allot.disruption-controller/budget-namespace";
const std::string kPodNamespaceIndex = "allot.disruption-controller/pod-namespace";

std::vector<std::string> NamespaceOf(const api::Object& obj) { return {obj.metadata.namespace_}; }

std::string KeyOf(const api::Object& obj) {
  return obj.metadata.namespace_ + "/" + obj.metadata.name;
}

// The selector as Go prints a *metav1.LabelSelector in %v, near enough for a message.
std::string SelectorText(const api::PodDisruptionBudget& pdb) {
  if (!pdb.spec.selector) return "nil";
  std::string out = "&LabelSelector{MatchLabels:map[string]string{";
  bool first = true;
  for (const auto& [k, v] : pdb.spec.selector->matchLabels) {
    out += (first ? "" : ",") + k + ": " + v;
    first = false;
  }
  return out + "},MatchExpressions:[]}";
}

}  // namespace

DisruptionController::DisruptionController(client::Client& client,
                                           client::InformerFactory& informers, Options options)
    : QueueController(client, informers,
                      ConfigOf("disruption", kDisruptionEventComponent, options)) {}

Status DisruptionController::Setup() {
  budgets_ = &Watch<api::PodDisruptionBudget>();
  pods_ = &Watch<api::Pod>();
  budgets_->AddIndex(kBudgetNamespaceIndex, NamespaceOf);
  pods_->AddIndex(kPodNamespaceIndex, NamespaceOf);
  budgets_->AddHandler(EnqueueOnChange(KeyOf));
  using Self = DisruptionController;
  pods_->AddHandler({
      .on_add = Guarded<Self>([](Self& c, const api::ObjectPtr& o) { c.OnPod(*o); }),
      .on_update =
          Guarded<Self>([](Self& c, const api::ObjectPtr& old_obj, const api::ObjectPtr& o) {
            if (old_obj->metadata.labels != o->metadata.labels) c.OnPod(*old_obj);
            c.OnPod(*o);
          }),
      .on_delete = Guarded<Self>([](Self& c, const api::ObjectPtr& o) { c.OnPod(*o); }),
  });
  return Status::Ok();
}

void DisruptionController::OnPod(const api::Object& pod) {
  for (const api::ObjectPtr& o :
       budgets_->ByIndex(kBudgetNamespaceIndex, pod.metadata.namespace_)) {
    const auto* pdb = api::As<api::PodDisruptionBudget>(*o);
    if (pdb && api::PodDisruptionBudgetSelects(*pdb, pod.metadata.labels)) queue().Add(KeyOf(*o));
  }
}

Status DisruptionController::Sync(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return Status::Ok();
  const std::string ns = key.substr(0, slash);
  api::ObjectPtr obj = budgets_->Get(ns, key.substr(slash + 1));
  const auto* pdb = obj ? api::As<api::PodDisruptionBudget>(*obj) : nullptr;
  if (!pdb) return Status::Ok();  // deleted

  std::vector<api::ObjectPtr> keep = pods_->ByIndex(kPodNamespaceIndex, ns);
  std::vector<const api::Pod*> pods;
  for (const api::ObjectPtr& o : keep) {
    const auto* pod = api::As<api::Pod>(*o);
    if (pod && api::PodDisruptionBudgetSelects(*pdb, pod->metadata.labels)) pods.push_back(pod);
  }
  const Time now = clock().Now();
  BudgetSync sync = SyncBudget(*pdb, pods, now);

  if (pods.empty()) {
    events().Record(*pdb, client::kEventTypeNormal, "NoPods", "", "No matching pods found");
  }
  if (!sync.error.ok()) {
    events().Record(*pdb, client::kEventTypeWarning, "CalculateExpectedPodCountFailed", "",
                    "Failed to calculate the number of expected pods: " + sync.error.message());
  }
  if (!sync.unmanaged_pods.empty()) {
    events().Record(*pdb, client::kEventTypeWarning, "UnmanagedPods", "",
                    "Pods selected by this PodDisruptionBudget (selector: " + SelectorText(*pdb) +
                        ") were found to be unmanaged. As a result, the status of the PDB cannot "
                        "be calculated correctly, which may result in undefined behavior. To "
                        "account for these pods please set \".spec.minAvailable\" field of the "
                        "PDB to an integer value.");
  }
  for (const std::string& name : sync.not_deleted_pods) {
    for (const api::Pod* pod : pods) {
      if (pod->metadata.name != name) continue;
      events().Record(*pod, client::kEventTypeWarning, "NotDeleted", "",
                      "Pod was expected by PDB " + pdb->metadata.namespace_ + "/" +
                          pdb->metadata.name + " to be deleted but it wasn't");
    }
  }

  if (sync.status) {
    auto next = std::make_unique<api::PodDisruptionBudget>(*pdb);
    next->status = std::move(*sync.status);
    Result<api::ObjectPtr> written =
        client().UpdateStatus(api::ResourceFor<api::PodDisruptionBudget>(), std::move(next));
    if (!written.ok()) {
      // A 409: the budget or an eviction moved on; the retry syncs from the current objects.
      return written.status().code() == StatusCode::kNotFound ? Status::Ok() : written.status();
    }
  }
  if (sync.recheck_at) {
    queue().AddAfter(key, std::chrono::microseconds(std::max<int64_t>(
                              0, sync.recheck_at->unix_micros - now.unix_micros)));
  }
  return Status::Ok();
}

}  // namespace allot::controllers

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
    : client_(client),
      informers_(informers),
      options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : RealClock::Instance()),
      own_events_(
          client::OwnRecorderUnless(options_.events, client, clock_, kDisruptionEventComponent)),
      events_(options_.events ? *options_.events : *own_events_),
      queue_(clock_, options_.queue),
      gate_(std::make_shared<HandlerGate<DisruptionController>>()) {}

DisruptionController::~DisruptionController() { Stop(); }

Status DisruptionController::Start() {
  if (started_) return InternalError("disruption controller: Start called twice");
  started_ = true;
  budgets_ = &informers_.For(api::ResourceFor<api::PodDisruptionBudget>());
  pods_ = &informers_.For(api::ResourceFor<api::Pod>());
  budgets_->AddIndex(kBudgetNamespaceIndex, NamespaceOf);
  pods_->AddIndex(kPodNamespaceIndex, NamespaceOf);
  gate_->Open(this);
  RegisterHandlers();
  const int n = std::max(1, options_.workers);
  for (int i = 0; i < n; ++i) {
    workers_.emplace_back([this] {
      RunSyncWorker(
          queue_, {budgets_, pods_}, "disruption",
          [this](const std::string& key) { return Sync(key); }, options_.on_sync);
    });
  }
  return Status::Ok();
}

void DisruptionController::Stop() {
  if (stopped_.exchange(true)) return;
  gate_->Close();
  queue_.ShutDown();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void DisruptionController::RegisterHandlers() {
  std::shared_ptr<HandlerGate<DisruptionController>> gate = gate_;
  budgets_->AddHandler({
      .on_add =
          [gate](const api::ObjectPtr& o) {
            gate->Call([&](auto& c) { c.queue_.Add(KeyOf(*o)); });
          },
      .on_update =
          [gate](const api::ObjectPtr&, const api::ObjectPtr& o) {
            gate->Call([&](auto& c) { c.queue_.Add(KeyOf(*o)); });
          },
  });
  pods_->AddHandler({
      .on_add = [gate](const api::ObjectPtr& o) { gate->Call([&](auto& c) { c.OnPod(*o); }); },
      .on_update =
          [gate](const api::ObjectPtr& old_obj, const api::ObjectPtr& o) {
            gate->Call([&](auto& c) {
              if (old_obj->metadata.labels != o->metadata.labels) c.OnPod(*old_obj);
              c.OnPod(*o);
            });
          },
      .on_delete = [gate](const api::ObjectPtr& o) { gate->Call([&](auto& c) { c.OnPod(*o); }); },
  });
}

void DisruptionController::OnPod(const api::Object& pod) {
  for (const api::ObjectPtr& o :
       budgets_->ByIndex(kBudgetNamespaceIndex, pod.metadata.namespace_)) {
    const auto* pdb = api::As<api::PodDisruptionBudget>(*o);
    if (pdb && api::PodDisruptionBudgetSelects(*pdb, pod.metadata.labels)) queue_.Add(KeyOf(*o));
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
  const Time now = clock_.Now();
  BudgetSync sync = SyncBudget(*pdb, pods, now);

  if (pods.empty()) {
    events_.Record(*pdb, client::kEventTypeNormal, "NoPods", "", "No matching pods found");
  }
  if (!sync.error.ok()) {
    events_.Record(*pdb, client::kEventTypeWarning, "CalculateExpectedPodCountFailed", "",
                   "Failed to calculate the number of expected pods: " + sync.error.message());
  }
  if (!sync.unmanaged_pods.empty()) {
    events_.Record(*pdb, client::kEventTypeWarning, "UnmanagedPods", "",
                   "Pods selected by this PodDisruptionBudget (selector: " + SelectorText(*pdb) +
                       ") were found to be unmanaged. As a result, the status of the PDB cannot "
                       "be calculated correctly, which may result in undefined behavior. To "
                       "account for these pods please set \".spec.minAvailable\" field of the "
                       "PDB to an integer value.");
  }
  for (const std::string& name : sync.not_deleted_pods) {
    for (const api::Pod* pod : pods) {
      if (pod->metadata.name != name) continue;
      events_.Record(*pod, client::kEventTypeWarning, "NotDeleted", "",
                     "Pod was expected by PDB " + pdb->metadata.namespace_ + "/" +
                         pdb->metadata.name + " to be deleted but it wasn't");
    }
  }

  if (sync.status) {
    auto next = std::make_unique<api::PodDisruptionBudget>(*pdb);
    next->status = std::move(*sync.status);
    Result<api::ObjectPtr> written =
        client_.UpdateStatus(api::ResourceFor<api::PodDisruptionBudget>(), std::move(next));
    if (!written.ok()) {
      // A 409: the budget or an eviction moved on; the retry syncs from the current objects.
      return written.status().code() == StatusCode::kNotFound ? Status::Ok() : written.status();
    }
  }
  if (sync.recheck_at) {
    queue_.AddAfter(key, std::chrono::microseconds(
                             std::max<int64_t>(0, sync.recheck_at->unix_micros - now.unix_micros)));
  }
  return Status::Ok();
}

}  // namespace allot::controllers

#include "controllers/clusterroleaggregation/controller.h"

#include <algorithm>

#include "api/machinery/resources.h"
#include "api/machinery/selector.h"

namespace allot::controllers {

std::vector<api::PolicyRule> AggregatedRules(const api::ClusterRole& role,
                                             const std::vector<const api::ClusterRole*>& all) {
  std::vector<api::PolicyRule> rules;
  if (!role.aggregationRule) return rules;
  std::vector<const api::ClusterRole*> by_name = all;
  std::sort(by_name.begin(), by_name.end(), [](const api::ClusterRole* a, const api::ClusterRole* b) {
    return a->metadata.name < b->metadata.name;
  });
  for (const api::LabelSelector& selector : role.aggregationRule->clusterRoleSelectors) {
    Result<api::LabelSelectorExpr> expr = api::LabelSelectorExpr::FromLabelSelector(selector);
    if (!expr.ok()) continue;
    for (const api::ClusterRole* other : by_name) {
      if (other->metadata.name == role.metadata.name) continue;
      if (!expr->Matches(other->metadata.labels)) continue;
      for (const api::PolicyRule& r : other->rules) {
        if (std::find(rules.begin(), rules.end(), r) == rules.end()) rules.push_back(r);
      }
    }
  }
  return rules;
}

ClusterRoleAggregationController::ClusterRoleAggregationController(
    client::Client& client, client::InformerFactory& informers, Options options)
    : client_(client),
      informers_(informers),
      options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : RealClock::Instance()),
      queue_(clock_, options_.queue),
      gate_(std::make_shared<HandlerGate<ClusterRoleAggregationController>>()) {}

ClusterRoleAggregationController::~ClusterRoleAggregationController() { Stop(); }

Status ClusterRoleAggregationController::Start() {
  if (started_) return InternalError("clusterrole-aggregation controller: Start called twice");
  started_ = true;
  roles_ = &informers_.For(api::ResourceFor<api::ClusterRole>());
  gate_->Open(this);
  std::shared_ptr<HandlerGate<ClusterRoleAggregationController>> gate = gate_;
  auto queue_all = [gate] { gate->Call([](auto& c) { c.QueueAggregators(); }); };
  roles_->AddHandler({
      .on_add = [queue_all](const api::ObjectPtr&) { queue_all(); },
      .on_update = [queue_all](const api::ObjectPtr&, const api::ObjectPtr&) { queue_all(); },
      .on_delete = [queue_all](const api::ObjectPtr&) { queue_all(); },
  });
  const int n = std::max(1, options_.workers);
  for (int i = 0; i < n; ++i) {
    workers_.emplace_back([this] {
      RunSyncWorker(
          queue_, {roles_}, "clusterrole-aggregation",
          [this](const std::string& key) { return Sync(key); }, options_.on_sync);
    });
  }
  return Status::Ok();
}

void ClusterRoleAggregationController::Stop() {
  if (stopped_.exchange(true)) return;
  gate_->Close();
  queue_.ShutDown();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void ClusterRoleAggregationController::QueueAggregators() {
  for (const api::ObjectPtr& o : roles_->List()) {
    const auto* role = api::As<api::ClusterRole>(*o);
    if (role && role->aggregationRule) queue_.Add(role->metadata.name);
  }
}

Status ClusterRoleAggregationController::Sync(const std::string& name) {
  api::ObjectPtr obj = roles_->Get("", name);
  const auto* role = obj ? api::As<api::ClusterRole>(*obj) : nullptr;
  if (!role || !role->aggregationRule) return Status::Ok();
  std::vector<api::ObjectPtr> keep = roles_->List();
  std::vector<const api::ClusterRole*> all;
  for (const api::ObjectPtr& o : keep) {
    if (const auto* r = api::As<api::ClusterRole>(*o)) all.push_back(r);
  }
  std::vector<api::PolicyRule> rules = AggregatedRules(*role, all);
  if (rules == role->rules) return Status::Ok();
  auto next = std::make_unique<api::ClusterRole>(*role);
  next->rules = std::move(rules);
  Result<api::ObjectPtr> written =
      client_.Update(api::ResourceFor<api::ClusterRole>(), std::move(next));
  // A 409: the role moved on; the retry syncs from the current objects. Gone: nothing to do.
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

}  // namespace allot::controllers

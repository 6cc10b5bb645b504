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
  std::sort(by_name.begin(), by_name.end(),
            [](const api::ClusterRole* a, const api::ClusterRole* b) {
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
    : QueueController(client, informers, ConfigOf("clusterrole-aggregation", "", options)) {}

Status ClusterRoleAggregationController::Setup() {
  roles_ = &Watch<api::ClusterRole>();
  using Self = ClusterRoleAggregationController;
  roles_->AddHandler({
      .on_add = Guarded<Self>([](Self& c, const api::ObjectPtr&) { c.QueueAggregators(); }),
      .on_update = Guarded<Self>(
          [](Self& c, const api::ObjectPtr&, const api::ObjectPtr&) { c.QueueAggregators(); }),
      .on_delete = Guarded<Self>([](Self& c, const api::ObjectPtr&) { c.QueueAggregators(); }),
  });
  return Status::Ok();
}

void ClusterRoleAggregationController::QueueAggregators() {
  for (const api::ObjectPtr& o : roles_->List()) {
    const auto* role = api::As<api::ClusterRole>(*o);
    if (role && role->aggregationRule) queue().Add(role->metadata.name);
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
      client().Update(api::ResourceFor<api::ClusterRole>(), std::move(next));
  // A 409: the role moved on; the retry syncs from the current objects. Gone: nothing to do.
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

}  // namespace allot::controllers

// The clusterrole-aggregation controller, as kube-controller-manager's: a ClusterRole with an
// aggregationRule gets, as its rules, the rules of every other ClusterRole whose labels match one
// of its clusterRoleSelectors — selector by selector, the matching roles by name, each rule once.
// Rules written by hand into an aggregated role are replaced.
//
//   client::InformerFactory factory(client);
//   controllers::ClusterRoleAggregationController c(client, factory);
//   ALLOT_RETURN_IF_ERROR(c.Start());  // registers handlers; returns at once
//   ALLOT_RETURN_IF_ERROR(factory.StartAll());
//
// Work-queue key: the aggregating role's name. Any ClusterRole added, changed or deleted queues
// every aggregating role (any of them may select it). The write is an update of the role's rules;
// a 409 is retried from the work queue with the current objects. Over HTTP the controller's user
// needs `escalate` on clusterroles (the rules it writes are not its own: bootstrap_policy.h gives
// system:kube-controller-manager that), since the RBAC escalation guard judges its writes.
//
// Lifecycle, workers and thread safety: controllers/queue_controller.h.
#pragma once

#include <string>
#include <vector>

#include "api/rbac/rbac.h"
#include "client/client.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "client/work_queue.h"
#include "common/status.h"
#include "common/time.h"
#include "controllers/queue_controller.h"

namespace allot::controllers {

// The rules `role` aggregates from `all` (every ClusterRole, itself included): for each of its
// selectors in order, the other roles that selector matches, by name, each rule the first time
// it is seen. Empty when `role` aggregates nothing. A selector that does not parse matches
// nothing (validation refuses such selectors).
std::vector<api::PolicyRule> AggregatedRules(const api::ClusterRole& role,
                                             const std::vector<const api::ClusterRole*>& all);

struct ClusterRoleAggregationOptions {
  int workers = 1;
  Clock* clock = nullptr;  // null: RealClock (the work queue's backoff)
  client::WorkQueueOptions queue;
  OnSyncFn on_sync;  // sees every key and its result (tests)
};

class ClusterRoleAggregationController : public QueueController {
 public:
  using Options = ClusterRoleAggregationOptions;

  ClusterRoleAggregationController(client::Client& client, client::InformerFactory& informers,
                                   Options options = {});
  ~ClusterRoleAggregationController() override { Stop(); }

 private:
  // Handlers on the factory's ClusterRole informer.
  Status Setup() override;
  Status Sync(const std::string& name) override;
  void QueueAggregators();

  client::Informer* roles_ = nullptr;  // set by Setup
};

}  // namespace allot::controllers

#include "cluster/components.h"

#include "cel/cel.h"
#include "common/files.h"
#include "node/node_objects.h"
#include "scheduler/config/config.h"

namespace allot::cluster {

store::StoreOptions DefaultStoreOptions() {
  store::StoreOptions options;
  options.validators = cel::SelectorValidators();
  return options;
}

Result<std::unique_ptr<scheduler::Scheduler>> StartScheduler(client::Client& client,
                                                             const std::string& config_path,
                                                             metrics::Registry* metrics,
                                                             const dra::Features& features,
                                                             client::InformerFactory* informers) {
  scheduler::SchedulerOptions opts;
  opts.metrics = metrics;
  opts.informers = informers;
  opts.dra_features = features;
  // DynamicResources' claim writes hold no worker (claim_writes.h); other PreBind plugins may
  // block on the API, and a claim write's 409 is retried from a fresh read on a thread.
  opts.binding_workers = 16;
  if (!config_path.empty()) {
    ALLOT_ASSIGN_OR_RETURN(std::string text, ReadFile(config_path));
    ALLOT_ASSIGN_OR_RETURN(opts.config, scheduler::ParseConfiguration(text));
  }
  ALLOT_ASSIGN_OR_RETURN(auto sched, scheduler::Scheduler::Create(client, std::move(opts)));
  if (informers) {
    sched->AddEventHandlers(informers->For(api::ResourceFor<api::Pod>()),
                            informers->For(api::ResourceFor<api::Node>()));
  }
  ALLOT_RETURN_IF_ERROR(sched->Start());
  return sched;
}

Controllers::~Controllers() { Stop(); }

void Controllers::Stop() {
  if (resource_claims_) resource_claims_->Stop();
  if (reservations_) reservations_->Stop();
  if (disruptions_) disruptions_->Stop();
  if (role_aggregation_) role_aggregation_->Stop();
  if (owned_informers_) owned_informers_->StopAll();
}

Result<std::unique_ptr<Controllers>> StartControllers(client::Client& client,
                                                      metrics::Registry* metrics,
                                                      const dra::Features& features, Clock* clock,
                                                      bool one_worker_each,
                                                      client::InformerFactory* informers) {
  std::unique_ptr<Controllers> c(new Controllers());
  if (!informers) {
    c->owned_informers_ = std::make_unique<client::InformerFactory>(client);
    informers = c->owned_informers_.get();
  }
  c->informers_ = informers;
  controllers::ResourceClaimController::Options opts;
  opts.metrics = metrics;
  opts.admin_access_enabled = features.admin_access;
  opts.reservations = true;  // the reservation controller below needs the API too
  // A pod's sync sends its writes (the claim create, then the pod status patch) and frees its
  // worker, so two workers keep up; what feeds the store's group commit is how many syncs are
  // in flight (Options::max_syncs_in_flight, 32: docs/performance.md has the measurements).
  if (one_worker_each) {
    opts.workers = 1;
    opts.max_syncs_in_flight = 1;
  }
  opts.clock = clock;
  c->resource_claims_ =
      std::make_unique<controllers::ResourceClaimController>(client, *c->informers_, opts);
  ALLOT_RETURN_IF_ERROR(c->resource_claims_->Start());
  controllers::ReservationController::Options reservation_opts;
  reservation_opts.clock = clock;
  if (one_worker_each) reservation_opts.workers = 1;
  c->reservations_ = std::make_unique<controllers::ReservationController>(client, *c->informers_,
                                                                          reservation_opts);
  ALLOT_RETURN_IF_ERROR(c->reservations_->Start());
  controllers::DisruptionController::Options disruption_opts;
  disruption_opts.clock = clock;
  if (one_worker_each) disruption_opts.workers = 1;
  c->disruptions_ =
      std::make_unique<controllers::DisruptionController>(client, *c->informers_, disruption_opts);
  ALLOT_RETURN_IF_ERROR(c->disruptions_->Start());
  controllers::ClusterRoleAggregationController::Options aggregation_opts;
  aggregation_opts.clock = clock;
  c->role_aggregation_ = std::make_unique<controllers::ClusterRoleAggregationController>(
      client, *c->informers_, aggregation_opts);
  ALLOT_RETURN_IF_ERROR(c->role_aggregation_->Start());
  ALLOT_RETURN_IF_ERROR(c->informers_->StartAll());
  return c;
}

Result<std::unique_ptr<node::NodeSimulator>> StartNodeSimulator(
    client::Client& client, Clock& clock, int64_t count, const std::string& template_path,
    drivers::SimulatedDevices* devices) {
  node::NodeSimulatorOptions opts;
  opts.node_count = count;
  if (!template_path.empty()) {
    ALLOT_ASSIGN_OR_RETURN(std::string text, ReadFile(template_path));
    ALLOT_ASSIGN_OR_RETURN(opts.shape.node_template, node::ParseNodeTemplate(text));
  }
  auto sim = std::make_unique<node::NodeSimulator>(client, clock, std::move(opts));
  if (devices) devices->Install(*sim);
  Status st = sim->Run();
  if (st.ok() && devices) st = devices->Start(*sim);
  if (!st.ok()) {
    if (devices) devices->Stop();  // detach it from `sim` before `sim` goes
    return st;
  }
  return sim;
}

}  // namespace allot::cluster

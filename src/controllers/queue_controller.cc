#include "controllers/queue_controller.h"

#include <algorithm>
#include <utility>

namespace allot::controllers {

QueueController::QueueController(client::Client& client, client::InformerFactory& informers,
                                 QueueControllerConfig config)
    : client_(client),
      informers_(informers),
      config_(std::move(config)),
      clock_(config_.clock ? *config_.clock : RealClock::Instance()),
      queue_(clock_, config_.queue),
      gate_(std::make_shared<HandlerGate<QueueController>>()) {
  if (!config_.event_component.empty()) {
    own_events_ =
        client::OwnRecorderUnless(config_.events, client, clock_, config_.event_component);
    events_ = config_.events ? config_.events : own_events_.get();
  }
  if (config_.max_syncs_in_flight > 0) {
    in_flight_ = std::make_unique<SyncsInFlight>(config_.max_syncs_in_flight);
  }
}

QueueController::~QueueController() { Stop(); }

Status QueueController::Start() {
  if (started_) return InternalError(std::string(config_.name) + " controller: Start called twice");
  started_ = true;
  gate_->Open(this);
  if (Status st = Setup(); !st.ok()) {
    gate_->Close();
    return st;
  }
  const int n = std::max(1, config_.workers);
  for (int i = 0; i < n; ++i) workers_.emplace_back([this] { RunWorker(); });
  return Status::Ok();
}

void QueueController::RunWorker() {
  if (in_flight_) {
    RunAsyncSyncWorker(
        queue_, watched_, config_.name,
        [this](const std::string& key, SyncDone done) { BeginSync(key, std::move(done)); },
        *in_flight_, config_.on_sync);
    return;
  }
  RunSyncWorker(
      queue_, watched_, config_.name, [this](const std::string& key) { return Sync(key); },
      config_.on_sync);
}

void QueueController::Stop() {
  if (stopped_.exchange(true)) return;
  gate_->Close();
  queue_.ShutDown();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  if (in_flight_) in_flight_->WaitIdle();  // their ends use the controller
  if (started_) OnStop();
}

Status QueueController::Sync(const std::string& key) {
  return InternalError(std::string(config_.name) + " controller: no Sync for key " + key);
}

client::Informer& QueueController::Watch(const api::ResourceInfo& res) {
  client::Informer& informer = informers_.For(res);
  if (std::find(watched_.begin(), watched_.end(), &informer) == watched_.end()) {
    watched_.push_back(&informer);
  }
  return informer;
}

client::EventHandler QueueController::EnqueueOnChange(
    std::function<std::string(const api::Object&)> key, bool deletes) {
  auto enqueue = [gate = gate_, key = std::move(key)](const api::ObjectPtr& o) {
    gate->Call([&](QueueController& c) { c.queue_.Add(key(*o)); });
  };
  client::EventHandler handler{
      .on_add = enqueue,
      .on_update = [enqueue](const api::ObjectPtr&, const api::ObjectPtr& o) { enqueue(o); },
      .on_delete = {},
  };
  if (deletes) handler.on_delete = enqueue;
  return handler;
}

}  // namespace allot::controllers

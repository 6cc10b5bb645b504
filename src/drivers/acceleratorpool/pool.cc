#include "drivers/acceleratorpool/pool.h"

#include "api/core/node.h"
#include "api/machinery/resources.h"
#include "api/resource/types.h"
#include "drivers/device_class.h"

namespace allot::drivers {

namespace {

// The driver's DeviceClass: claims name it; suitableNodes limits the scheduler to the nodes
// that reach the pool before any driver is asked.
std::unique_ptr<api::DeviceClass> PoolClass(const AcceleratorPoolConfig& c) {
  auto cls = std::make_unique<api::DeviceClass>();
  cls->metadata.name = c.driver;
  if (!c.node_selector.empty()) {
    api::NodeSelectorTerm term;
    for (const auto& [k, v] : c.node_selector) term.matchExpressions.push_back({k, "In", {v}});
    cls->spec.suitableNodes.emplace();
    cls->spec.suitableNodes->nodeSelectorTerms.push_back(std::move(term));
  }
  return cls;
}

}  // namespace

AcceleratorPool::AcceleratorPool(client::Client& client, AcceleratorPoolConfig config,
                                 AcceleratorPoolOptions options)
    : client_(client), config_(std::move(config)), options_(options) {}

AcceleratorPool::~AcceleratorPool() { Stop(); }

Status AcceleratorPool::Start(std::chrono::milliseconds sync_timeout) {
  ALLOT_RETURN_IF_ERROR(EnsureDeviceClass(client_, PoolClass(config_)));
  nodes_ = std::make_unique<client::Informer>(client_, api::ResourceFor<api::Node>());
  ALLOT_RETURN_IF_ERROR(nodes_->Start());
  if (!nodes_->WaitForSync(sync_timeout)) {
    return Status(StatusCode::kTimeout, "the node informer of " + config_.driver + " did not sync");
  }
  client::Informer* nodes = nodes_.get();
  driver_ = std::make_unique<AcceleratorPoolDriver>(
      config_,
      [nodes](const std::string& name) -> std::shared_ptr<const api::Node> {
        api::ObjectPtr o = nodes->Get("", name);
        if (!o || !api::As<api::Node>(*o)) return nullptr;
        return std::static_pointer_cast<const api::Node>(o);
      },
      options_.clock);
  // Claims allocated before this process started keep their slots.
  ALLOT_ASSIGN_OR_RETURN(api::ListResult claims,
                         client_.List(api::ResourceFor<api::ResourceClaim>(), {}));
  for (const api::ObjectPtr& o : claims.items) {
    if (const auto* claim = api::As<api::ResourceClaim>(*o)) driver_->Restore(*claim);
  }
  controller_ = std::make_unique<controlplane::Controller>(
      client_, *driver_,
      controlplane::ControllerOptions{.driver_name = config_.driver,
                                      .workers = static_cast<int>(config_.workers),
                                      .resync = options_.resync,
                                      .clock = options_.clock});
  return controller_->Start(sync_timeout);
}

void AcceleratorPool::Stop() {
  if (driver_) driver_->Interrupt();  // a worker waiting out a latency returns at once
  if (controller_) controller_->Stop();
  if (nodes_) nodes_->Stop();
}

controlplane::Controller::Stats AcceleratorPool::stats() const {
  return controller_ ? controller_->GetStats() : controlplane::Controller::Stats{};
}

}  // namespace allot::drivers

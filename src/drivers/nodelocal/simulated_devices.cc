#include "drivers/nodelocal/simulated_devices.h"

#include <utility>

namespace allot::drivers {

SimulatedDevices::SimulatedDevices(client::Client& client, SimulatedDevicesOptions options)
    : client_(client),
      options_(std::move(options)),
      driver_(client, options_.profile),
      kubelet_(client, options_.shared_claims) {
  // Cannot fail: the registry is new and holds nothing else.
  (void)kubelet_.plugins().Register(driver_);
}

SimulatedDevices::~SimulatedDevices() {
  Stop();
  // A simulator still holding our hooks then reports "driver ... is not registered" rather
  // than calling a destroyed plugin.
  kubelet_.plugins().Unregister(driver_.driver_name());
}

void SimulatedDevices::Install(node::NodeSimulator& sim) { kubelet_.Install(sim); }

Status SimulatedDevices::Start(const node::NodeSimulator& sim) {
  ALLOT_RETURN_IF_ERROR(EnsureDeviceClass(client_, driver_.driver_name()));
  driver_.SetNodes(sim.NodeNames());
  if (Status st = driver_.Publish(); !st.ok() && options_.log) options_.log(st.message());
  ALLOT_RETURN_IF_ERROR(kubelet_.Start());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!resync_.joinable() && !stopping_ && options_.resync_period.count() > 0) {
      resync_ = std::thread([this] { ResyncLoop(); });
    }
  }
  return Status::Ok();
}

void SimulatedDevices::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (resync_.joinable()) resync_.join();
  kubelet_.Stop();
}

void SimulatedDevices::ResyncLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, options_.resync_period, [this] { return stopping_; })) {
    lock.unlock();
    Status st = driver_.Publish();
    if (!st.ok() && options_.log) options_.log(st.message());
    lock.lock();
  }
}

}  // namespace allot::drivers

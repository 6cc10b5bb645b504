// FabricDriver's claim status writes: read the claim, merge our entry into status.devices
// (keeping every other entry and condition), write it with compare-and-swap, and start over
// from a fresh read on 409 Conflict (the scheduler or another driver wrote in between:
// client::UpdateWithRetry).
#include "client/retry.h"
#include "drivers/device_status.h"
#include "drivers/fabric/internal.h"

namespace allot::drivers {

namespace {

// Whether the claim still holds the device on the node the write is about; otherwise the
// write is moot and the next Tick reconciles with whatever happened.
bool StillHolds(const api::ResourceClaim& claim, const std::string& uid, const std::string& node,
                const api::DeviceRequestAllocationResult& device) {
  if (claim.metadata.uid != uid || !claim.status.allocation) return false;
  if (PinnedNode(*claim.status.allocation) != node) return false;
  for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices.results) {
    if (r.driver == device.driver && r.pool == device.pool && r.device == device.device) {
      return true;
    }
  }
  return false;
}

}  // namespace

FabricDriver::WriteOutcome FabricDriver::WriteStatus(const StatusWrite& w) {
  using Kind = WriteOutcome::Kind;
  WriteOutcome out;
  bool gone = false;
  bool changed = false;
  Result<api::ObjectPtr> put = client::UpdateWithRetry(
      client_, claims_res_, w.ns, w.name, client::Write::kStatus,
      [&](const api::Object& o) -> Result<client::Desired> {
        const auto* current = api::As<api::ResourceClaim>(o);
        gone = current == nullptr || !StillHolds(*current, w.uid, w.node, w.result);
        if (gone) return client::Desired();
        auto copy = std::make_unique<api::ResourceClaim>(*current);
        changed = SetDeviceConditions(copy->status, w.result, w.conditions);
        if (!changed) return client::Desired();
        return client::Desired(std::move(copy));
      });
  if (!put.ok()) {
    out.kind = put.status().code() == StatusCode::kNotFound ? Kind::kGone : Kind::kError;
    out.error = put.status();
    return out;
  }
  if (gone) {
    out.kind = Kind::kGone;
    return out;
  }
  out.kind = Kind::kWritten;
  out.changed = changed;
  out.rv = ResourceVersionNumber((*put)->metadata.resourceVersion);
  return out;
}

}  // namespace allot::drivers

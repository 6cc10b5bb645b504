// FabricDriver's claim status writes: read the claim, merge our entry into status.devices
// (keeping every other entry and condition), write it with compare-and-swap, and start over
// from a fresh read on 409 Conflict (the scheduler or another driver wrote in between).
#include "drivers/device_status.h"
#include "drivers/fabric_internal.h"

namespace allot::drivers {

namespace {

constexpr int kMaxConflictRetries = 5;

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
  for (int attempt = 0; attempt <= kMaxConflictRetries; ++attempt) {
    Result<api::ObjectPtr> got = client_.Get(claims_res_, w.ns, w.name);
    if (!got.ok()) {
      out.kind = got.status().code() == StatusCode::kNotFound ? Kind::kGone : Kind::kError;
      out.error = got.status();
      return out;
    }
    const auto* current = api::As<api::ResourceClaim>(**got);
    if (current == nullptr || !StillHolds(*current, w.uid, w.node, w.result)) {
      out.kind = Kind::kGone;
      return out;
    }
    std::unique_ptr<api::Object> copy = (*got)->Clone();
    if (!SetDeviceConditions(api::As<api::ResourceClaim>(*copy)->status, w.result, w.conditions)) {
      out.kind = Kind::kWritten;
      out.rv = ResourceVersionNumber(current->metadata.resourceVersion);
      return out;
    }
    Result<api::ObjectPtr> put = client_.UpdateStatus(claims_res_, std::move(copy));
    if (put.ok()) {
      out.kind = Kind::kWritten;
      out.changed = true;
      out.rv = ResourceVersionNumber((*put)->metadata.resourceVersion);
      return out;
    }
    if (put.status().code() == StatusCode::kConflict) continue;
    out.kind = put.status().code() == StatusCode::kNotFound ? Kind::kGone : Kind::kError;
    out.error = put.status();
    return out;
  }
  out.kind = Kind::kError;
  out.error = Status(StatusCode::kConflict, "the claim kept changing (" +
                                                std::to_string(kMaxConflictRetries + 1) +
                                                " conflicting writes)");
  return out;
}

}  // namespace allot::drivers

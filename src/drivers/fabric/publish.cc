// FabricDriver's slices: what each pool's slice should hold given the devices' state, and
// bringing the store in line with it (create, update with a generation bump, delete strays).
#include <algorithm>

#include "api/machinery/selector.h"
#include "client/retry.h"
#include "drivers/fabric/devices.h"
#include "drivers/fabric/internal.h"
#include "drivers/resourceslice/publisher.h"

namespace allot::drivers {

namespace {

// A write that raced with someone else's is retried from a fresh list.
// A publish pass that raced with someone else's write starts again from a fresh list, as often
// as a read-modify-write is retried (client/retry.h).
constexpr int kMaxPublishAttempts = client::kConflictAttempts;

bool Raced(StatusCode code) {
  return code == StatusCode::kConflict || code == StatusCode::kAlreadyExists ||
         code == StatusCode::kNotFound;
}

}  // namespace

std::vector<std::vector<api::Device>> FabricDriver::DesiredDevicesLocked() const {
  std::vector<std::vector<api::Device>> out(config_.pools.size());
  for (const Device& d : devices_) {
    const bool cooling = d.cooldown_until.has_value();
    if (cooling && config_.on_failure == FabricFailurePolicy::kRemove) continue;
    FabricDeviceShape shape;
    if (d.phase == DevicePhase::kAttached || d.phase == DevicePhase::kDetaching) {
      shape.attached_to = d.node;
    }
    if (cooling && config_.on_failure == FabricFailurePolicy::kTaint) shape.taint = d.taint;
    out[d.pool].push_back(FabricDevice(config_, config_.pools[d.pool], d.index, shape));
  }
  return out;
}

Status FabricDriver::Publish(const std::vector<std::vector<api::Device>>& desired,
                             uint64_t& writes) {
  Status st;
  for (int attempt = 0; attempt < kMaxPublishAttempts; ++attempt) {
    api::ListOptions opts;
    opts.field_selector = api::FieldSelectorExpr::OneTermEqual("spec.driver", config_.driver);
    Result<api::ListResult> slices = client_.List(slices_res_, opts);
    if (!slices.ok()) return slices.status();
    st = PublishOnce(slices->items, desired, writes);
    if (st.ok() || !Raced(st.code())) return st;
  }
  return st;
}

Status FabricDriver::PublishOnce(const std::vector<api::ObjectPtr>& slices,
                                 const std::vector<std::vector<api::Device>>& desired,
                                 uint64_t& writes) {
  for (size_t p = 0; p < config_.pools.size(); ++p) {
    const FabricPoolConfig& pool = config_.pools[p];
    // Our slice is the one with our name and per-device node selection; any other slice in
    // the pool would make it inconsistent (resourceSliceCount is 1) and goes.
    api::ResourceSlice want = FabricSlice(config_, pool, desired[p], /*generation=*/0);
    std::vector<const api::ResourceSlice*> existing;
    for (const api::ObjectPtr& o : slices) {
      const auto* s = api::As<api::ResourceSlice>(*o);
      if (s != nullptr && s->spec.driver == config_.driver &&
          s->spec.pool.name == want.spec.pool.name) {
        existing.push_back(s);
      }
    }
    resourceslice::PoolPlan plan =
        resourceslice::PlanPool(existing, want, {.remembered_generation = generations_[p]});
    for (resourceslice::SliceWrite& w : plan.writes) {
      switch (w.kind) {
        case resourceslice::SliceWrite::Kind::kDelete: {
          api::DeleteOptions opts;
          opts.precondition_uid = w.uid;
          Result<api::DeleteResult> r = client_.Delete(slices_res_, "", w.name, opts);
          if (!r.ok() && r.status().code() != StatusCode::kNotFound) return r.status();
          break;
        }
        case resourceslice::SliceWrite::Kind::kCreate:
          ALLOT_RETURN_IF_ERROR(client_.Create(slices_res_, std::move(w.slice)).status());
          break;
        case resourceslice::SliceWrite::Kind::kUpdate:
          ALLOT_RETURN_IF_ERROR(client_.Update(slices_res_, std::move(w.slice)).status());
          break;
      }
      ++writes;
    }
    generations_[p] = plan.remember;
  }
  return Status::Ok();
}

}  // namespace allot::drivers

// FabricDriver's slices: what each pool's slice should hold given the devices' state, and
// bringing the store in line with it (create, update with a generation bump, delete strays).
#include <algorithm>

#include "api/machinery/selector.h"
#include "client/retry.h"
#include "drivers/fabric/devices.h"
#include "drivers/fabric/internal.h"

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
    const std::string pool_name = FabricPoolName(pool.model);
    const std::string name = FabricSliceName(pool.model, config_.driver);
    // Our slice is the one with our name and per-device node selection; any other slice in
    // the pool would make it inconsistent (resourceSliceCount is 1) and goes.
    const api::ResourceSlice* ours = nullptr;
    std::vector<const api::ResourceSlice*> strays;
    int64_t generation = generations_[p];
    for (const api::ObjectPtr& o : slices) {
      const auto* s = api::As<api::ResourceSlice>(*o);
      if (s == nullptr || s->spec.driver != config_.driver || s->spec.pool.name != pool_name) {
        continue;
      }
      generation = std::max(generation, s->spec.pool.generation);
      if (ours == nullptr && s->metadata.name == name &&
          s->spec.perDeviceNodeSelection.value_or(false)) {
        ours = s;
      } else {
        strays.push_back(s);
      }
    }
    for (const api::ResourceSlice* s : strays) {
      api::DeleteOptions opts;
      opts.precondition_uid = s->metadata.uid;
      Result<api::DeleteResult> r = client_.Delete(slices_res_, "", s->metadata.name, opts);
      if (!r.ok() && r.status().code() != StatusCode::kNotFound) return r.status();
      ++writes;
    }
    api::ResourceSlice want =
        FabricSlice(config_, pool, desired[p], ours ? ours->spec.pool.generation : generation + 1);
    if (ours == nullptr) {
      ALLOT_RETURN_IF_ERROR(
          client_.Create(slices_res_, std::make_unique<api::ResourceSlice>(std::move(want)))
              .status());
      ++writes;
      generations_[p] = generation + 1;
      continue;
    }
    generations_[p] = generation;
    if (ours->spec == want.spec) continue;
    auto updated = std::make_unique<api::ResourceSlice>(*ours);  // keeps the resourceVersion
    updated->spec = std::move(want.spec);
    updated->spec.pool.generation = generation + 1;
    ALLOT_RETURN_IF_ERROR(client_.Update(slices_res_, std::move(updated)).status());
    ++writes;
    generations_[p] = generation + 1;
  }
  return Status::Ok();
}

}  // namespace allot::drivers

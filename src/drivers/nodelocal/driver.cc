#include "drivers/nodelocal/driver.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <utility>

#include "api/core/node.h"
#include "api/resource/types.h"
#include "drivers/device_class.h"
#include "drivers/device_status.h"
#include "drivers/resourceslice/publisher.h"
#include "node/write_pipeline.h"

namespace allot::drivers {

namespace {

constexpr size_t kMaxInFlightWrites = 64;
constexpr std::chrono::minutes kPublishTimeout{5};
constexpr size_t kMaxNameLength = 253;

const api::ResourceSlice& AsSlice(const api::ObjectPtr& obj) {
  return *api::As<api::ResourceSlice>(*obj);
}

api::OwnerReference NodeOwner(const std::string& node, const std::string& uid) {
  return {.apiVersion = "v1", .kind = "Node", .name = node, .uid = uid, .controller = true};
}

// The owner references with ours in place of any other Node's.
std::vector<api::OwnerReference> WithNodeOwner(std::vector<api::OwnerReference> refs,
                                               const api::OwnerReference& owner) {
  std::erase_if(
      refs, [](const api::OwnerReference& r) { return r.kind == "Node" && r.apiVersion == "v1"; });
  refs.insert(refs.begin(), owner);
  return refs;
}

std::set<std::string> DeviceNames(const std::vector<api::Device>& devices) {
  std::set<std::string> names;
  for (const api::Device& d : devices) names.insert(d.name);
  return names;
}

// A device of another pool of our driver (a fabric device, drivers/fabric/driver.h) that was
// hot-plugged into `node` for this claim: the allocation is pinned to the node and the claim's
// status shows the device ready (binding conditions True).
bool HotPluggedInto(const api::ResourceClaim& claim, const api::DeviceRequestAllocationResult& r,
                    std::string_view node) {
  return PinnedNode(*claim.status.allocation) == node && ReportedReady(claim.status, r);
}

}  // namespace

// What one Publish() writes, computed from a snapshot without the lock.
struct NodeLocalDriver::Plan {
  struct Write {
    using Kind = resourceslice::SliceWrite::Kind;
    Kind kind;
    std::string node;
    std::unique_ptr<api::Object> obj;  // kCreate, kUpdate
    std::string name, uid;             // kDelete
  };
  std::vector<Write> writes;
  // Served nodes and the devices their slice will hold once their writes succeed.
  std::map<std::string, std::set<std::string>> current;
  // Nodes no longer served; forgotten once their slices are deleted.
  std::set<std::string> dropped;
  // Nodes that failed (before or during the writes), and the first error.
  std::set<std::string> failed;
  Status first_error;
  uint64_t created = 0, updated = 0, deleted = 0;
  std::mutex mu;  // guards failed / first_error / counts while writes complete

  void Fail(const std::string& node, const Status& status) {
    failed.insert(node);
    if (first_error.ok()) first_error = status;
  }
};

NodeLocalDriver::NodeLocalDriver(client::Client& client, DeviceProfile profile)
    : client_(client),
      driver_(profile.driver),
      slices_res_(api::ResourceFor<api::ResourceSlice>()),
      nodes_res_(api::ResourceFor<api::Node>()),
      profile_(std::move(profile)) {}

void NodeLocalDriver::SetNodes(std::vector<std::string> nodes) {
  std::lock_guard<std::mutex> lock(mu_);
  nodes_ = std::set<std::string>(std::make_move_iterator(nodes.begin()),
                                 std::make_move_iterator(nodes.end()));
}

Status NodeLocalDriver::SetProfile(DeviceProfile profile) {
  if (profile.driver != driver_) {
    return BadRequestError("the device profile's driver cannot change from " + driver_ + " to " +
                           profile.driver);
  }
  ALLOT_RETURN_IF_ERROR(ValidateDeviceProfile(profile));
  std::lock_guard<std::mutex> lock(mu_);
  profile_ = std::move(profile);
  return Status::Ok();
}

std::string NodeLocalDriver::SliceName(std::string_view node, std::string_view driver) {
  std::string suffix(driver);
  std::replace(suffix.begin(), suffix.end(), '.', '-');
  std::string name = std::string(node) + "-" + suffix;
  if (name.size() <= kMaxNameLength) return name;
  std::array<char, 17> hash{};
  std::snprintf(hash.data(), hash.size(), "%08zx", std::hash<std::string>{}(name)&0xffffffff);
  name.resize(kMaxNameLength - 9);
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  return name + "-" + hash.data();
}

Status NodeLocalDriver::Publish() {
  std::lock_guard<std::mutex> publish_lock(publish_mu_);
  api::ListOptions opts;
  opts.field_selector = api::FieldSelectorExpr::OneTermEqual("spec.driver", driver_);
  ALLOT_ASSIGN_OR_RETURN(api::ListResult slices, client_.List(slices_res_, opts));
  ALLOT_ASSIGN_OR_RETURN(api::ListResult nodes, client_.List(nodes_res_, {}));
  std::map<std::string, std::string> node_uids;
  for (const api::ObjectPtr& n : nodes.items) node_uids[n->metadata.name] = n->metadata.uid;
  Plan plan;
  MakePlan(slices.items, node_uids, plan);
  return Execute(plan);
}

void NodeLocalDriver::MakePlan(const std::vector<api::ObjectPtr>& slices,
                               const std::map<std::string, std::string>& node_uids,
                               Plan& plan) const {
  DeviceProfile profile;
  std::set<std::string> serve, previous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    profile = profile_;
    serve = nodes_;
    for (const auto& [node, devices] : published_) previous.insert(node);
  }
  std::map<std::string, std::vector<api::ObjectPtr>> by_node;
  for (const api::ObjectPtr& s : slices) {
    const api::ResourceSlice& slice = AsSlice(s);
    if (slice.spec.driver == driver_ && slice.spec.nodeName)
      by_node[*slice.spec.nodeName].push_back(s);
  }
  using Kind = Plan::Write::Kind;
  auto remove = [&](const std::string& node, const api::ObjectPtr& s) {
    plan.writes.push_back({Kind::kDelete, node, nullptr, s->metadata.name, s->metadata.uid});
  };
  for (const std::string& node : serve) {
    auto uid = node_uids.find(node);
    if (uid == node_uids.end()) {
      plan.Fail(node, NotFoundError("nodes", node));
      continue;
    }
    api::ResourceSlice desired;
    desired.metadata.name = SliceName(node, driver_);
    desired.spec.driver = driver_;
    desired.spec.nodeName = node;
    desired.spec.pool = {.name = node, .generation = 0, .resourceSliceCount = 1};
    desired.spec.devices = DevicesForNode(profile, node);
    plan.current[node] = DeviceNames(desired.spec.devices);
    std::vector<const api::ResourceSlice*> existing;
    for (const api::ObjectPtr& o : by_node[node]) existing.push_back(&AsSlice(o));
    // A slice of the node's pool under another name (an earlier process's) is taken over.
    const api::OwnerReference owner = NodeOwner(node, uid->second);
    resourceslice::PoolPlan pool = resourceslice::PlanPool(
        existing, desired, {.adopt = true, .metadata = [&](api::ObjectMeta& meta) {
                              meta.ownerReferences = WithNodeOwner(meta.ownerReferences, owner);
                            }});
    for (resourceslice::SliceWrite& w : pool.writes) {
      plan.writes.push_back(
          {w.kind, node, std::move(w.slice), std::move(w.name), std::move(w.uid)});
    }
  }
  for (const std::string& node : previous) {
    if (serve.contains(node)) continue;
    plan.dropped.insert(node);
    for (const api::ObjectPtr& s : by_node[node]) remove(node, s);
  }
}

Status NodeLocalDriver::Execute(Plan& plan) {
  using Kind = Plan::Write::Kind;
  {
    node::WritePipeline pipeline(kMaxInFlightWrites);
    for (Plan::Write& w : plan.writes) {
      auto box = std::make_shared<Plan::Write>(std::move(w));
      pipeline.Submit([this, &plan, box](node::WritePipeline::Done done) {
        auto finish = [&plan, box, done](const Status& st) {
          {
            std::lock_guard<std::mutex> lock(plan.mu);
            if (!st.ok()) {
              plan.Fail(box->node, st);
            } else {
              (box->kind == Kind::kCreate   ? plan.created
               : box->kind == Kind::kUpdate ? plan.updated
                                            : plan.deleted)++;
            }
          }
          done();
        };
        auto on_object = [finish](Result<api::ObjectPtr> r) { finish(r.status()); };
        switch (box->kind) {
          case Kind::kCreate:
            return client_.CreateAsync(slices_res_, std::move(box->obj), on_object);
          case Kind::kUpdate:
            return client_.UpdateAsync(slices_res_, std::move(box->obj), on_object);
          case Kind::kDelete: {
            api::DeleteOptions opts;
            opts.precondition_uid = box->uid;
            return client_.DeleteAsync(slices_res_, "", box->name, opts,
                                       [finish](Result<api::DeleteResult> r) {
                                         bool gone = r.status().code() == StatusCode::kNotFound;
                                         finish(gone ? Status::Ok() : r.status());
                                       });
          }
        }
      });
    }
    if (!pipeline.WaitIdle(kPublishTimeout)) {
      std::lock_guard<std::mutex> lock(plan.mu);
      plan.Fail("", Status(StatusCode::kTimeout, "publishing ResourceSlices timed out"));
    }
  }  // the pipeline waits for writes still in flight
  std::lock_guard<std::mutex> lock(mu_);
  stats_.slices_created += plan.created;
  stats_.slices_updated += plan.updated;
  stats_.slices_deleted += plan.deleted;
  for (auto& [node, devices] : plan.current) {
    if (!plan.failed.contains(node)) published_[node] = std::move(devices);
  }
  for (const std::string& node : plan.dropped) {
    auto it = published_.find(node);
    if (!plan.failed.contains(node) && it != published_.end()) published_.erase(it);
  }
  if (plan.failed.empty()) return Status::Ok();
  Status st = plan.first_error;
  return Status(st.code(), "publishing ResourceSlices of driver " + driver_ + " failed for " +
                               std::to_string(plan.failed.size()) +
                               " node(s); first: " + st.message());
}

Status NodeLocalDriver::PrepareResources(const api::ResourceClaim& claim, std::string_view node) {
  const std::string id = claim.metadata.namespace_ + "/" + claim.metadata.name;
  if (!claim.status.allocation) {
    return Status(StatusCode::kBadRequest, "resourceclaim " + id + " is not allocated");
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto published = published_.find(node);
  if (published == published_.end()) {
    return Status(StatusCode::kServiceUnavailable,
                  "driver " + driver_ + " has not published devices for node " + std::string(node));
  }
  std::vector<std::string> devices;
  for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices.results) {
    if (r.driver != driver_) continue;
    if (r.pool == node && published->second.contains(r.device)) {
      devices.push_back(r.device);
    } else if (r.pool != node && HotPluggedInto(claim, r, node)) {
      devices.push_back(r.pool + "/" + r.device);
    } else {
      return Status(StatusCode::kBadRequest,
                    "resourceclaim " + id + ": device " + r.driver + "/" + r.pool + "/" + r.device +
                        " is not a device of node " + std::string(node) +
                        (r.pool == node ? ""
                                        : " (nor shown attached to it in the claim's "
                                          "status.devices)"));
    }
  }
  std::sort(devices.begin(), devices.end());
  auto& on_node = prepared_[std::string(node)];
  node::ClaimRef ref{claim.metadata.namespace_, claim.metadata.name, claim.metadata.uid};
  auto [it, inserted] = on_node.try_emplace(claim.metadata.uid, Prepared{ref, devices});
  if (inserted) ++stats_.prepared_claims;
  return Status::Ok();
}

Status NodeLocalDriver::UnprepareResources(const node::ClaimRef& claim, std::string_view node) {
  std::lock_guard<std::mutex> lock(mu_);
  auto on_node = prepared_.find(node);
  if (on_node == prepared_.end()) return Status::Ok();
  if (on_node->second.erase(claim.uid) > 0) --stats_.prepared_claims;
  if (on_node->second.empty()) prepared_.erase(on_node);
  return Status::Ok();
}

NodeLocalDriver::Stats NodeLocalDriver::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::vector<std::string> NodeLocalDriver::PreparedDevices(std::string_view node) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  auto on_node = prepared_.find(node);
  if (on_node == prepared_.end()) return out;
  for (const auto& [uid, p] : on_node->second)
    out.insert(out.end(), p.devices.begin(), p.devices.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> NodeLocalDriver::PublishedNodes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [node, devices] : published_) out.push_back(node);
  return out;
}

Status EnsureDeviceClass(client::Client& client, std::string_view driver) {
  auto cls = std::make_unique<api::DeviceClass>();
  cls->metadata.name = std::string(driver);
  cls->spec.selectors.push_back(
      {.cel = api::CELDeviceSelector{"device.driver == '" + std::string(driver) + "'"}});
  return EnsureDeviceClass(client, std::move(cls));
}

}  // namespace allot::drivers

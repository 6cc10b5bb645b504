// NodeSimulator, node side: registration (create or adopt), leases, Ready heartbeats, and
// re-registration of nodes deleted behind the simulator's back.
//
// Write budget: registering N nodes costs N node creates plus N lease creates, after one paged
// list of nodes and one of leases (an existing node costs a status update instead of a create,
// an existing lease an update). Afterwards each node costs one lease update
// per lease_renew_interval and one status patch per node_status_interval. Nodes are spread over
// whole-second offsets within each interval, so a round's writes leave together and the store
// commits each second's writes in one batch.
#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>

#include "client/retry.h"
#include "node/simulator_impl.h"

namespace allot::node {

namespace {

constexpr std::chrono::seconds kRegisterRetry{5};
constexpr std::chrono::minutes kRegisterTimeout{10};
constexpr int64_t kListPage = 500;

// Outcome of the node creates, filled in from the client's threads.
struct Tally {
  std::mutex mu;
  std::vector<uint32_t> raced;  // AlreadyExists / Conflict: adopt them one by one
  int done = 0;
  int failed = 0;
  Status first_error;
};

Time Plus(Time t, std::chrono::seconds s) { return AddDuration(t, s); }

}  // namespace

Status NodeSimulator::Impl::ValidateOptions() const {
  const NodeSimulatorOptions& o = options_;
  if (o.node_count < 0 || o.first_index < 0 || o.first_index + o.node_count > kMaxNodes) {
    return BadRequestError("node simulator: node indexes must lie in [0, " +
                           std::to_string(kMaxNodes) + ")");
  }
  if (o.name_prefix.empty()) return BadRequestError("node simulator: empty name prefix");
  if (o.lease_renew_interval.count() <= 0 || o.node_status_interval.count() <= 0 ||
      o.lease_duration_seconds <= 0) {
    return BadRequestError("node simulator: lease and status intervals must be positive");
  }
  return Status::Ok();
}

Status NodeSimulator::Impl::Register() {
  ALLOT_RETURN_IF_ERROR(ValidateOptions());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (registered_once_) return Status::Ok();
    registered_once_ = true;
  }
  std::vector<uint32_t> raced;
  int failed = 0;
  Status first_error;
  std::unordered_map<uint32_t, api::ObjectPtr> nodes = ListOurs(*nodes_res_, "");
  WriteNodes(nodes, raced, failed, first_error);
  AdoptNodes(raced, failed, first_error);
  WriteLeases(ListOurs(*leases_res_, kNodeLeaseNamespace));
  ScheduleHeartbeats(clock_.Now());
  Stats s = GetStats();
  Log("registered " + std::to_string(s.nodes) + "/" + std::to_string(nodes_.size()) + " nodes (" +
      std::to_string(s.nodes_adopted) + " already existed, " + std::to_string(failed) + " failed)");
  if (failed == 0) return Status::Ok();
  return Status(first_error.code(),
                "node simulator: " + std::to_string(failed) + " of " +
                    std::to_string(nodes_.size()) +
                    " nodes failed to register; first: " + first_error.message());
}

// Our objects among those that exist already (a restarted simulator finds its nodes and
// leases), by slot. One paged list instead of a failed create and a read per object. If the
// list fails, everything is created and AlreadyExists answers fall back to AdoptNodes.
std::unordered_map<uint32_t, api::ObjectPtr> NodeSimulator::Impl::ListOurs(
    const api::ResourceInfo& res, const std::string& ns) {
  std::unordered_map<uint32_t, api::ObjectPtr> out;
  api::ListOptions opts;
  opts.namespace_ = ns;
  opts.limit = kListPage;
  do {
    Result<api::ListResult> page = client_.List(res, opts);
    if (!page.ok()) {
      Log("listing existing " + res.resource + ": " + page.status().ToString());
      return out;
    }
    for (const api::ObjectPtr& o : page->items) {
      if (const SimNode* n = FindNode(o->metadata.name)) out.emplace(n->slot, o);
    }
    opts.continue_token = page->continue_token;
  } while (!opts.continue_token.empty());
  return out;
}

void NodeSimulator::Impl::WriteNodes(const std::unordered_map<uint32_t, api::ObjectPtr>& existing,
                                     std::vector<uint32_t>& raced, int& failed,
                                     Status& first_error) {
  auto tally = std::make_shared<Tally>();
  const int total = static_cast<int>(nodes_.size());
  const int log_every = std::max(1, total / 10);
  Time now = clock_.Now();
  for (const auto& node : nodes_) {
    uint32_t slot = node->slot;
    std::unique_ptr<api::Node> fresh = MakeNode(options_.shape, node->name, node->index, now);
    auto found = existing.find(slot);
    bool adopt = found != existing.end();
    if (adopt) {
      // Taken over: status replaced by ours, spec and metadata left alone.
      auto current = std::make_unique<api::Node>(*api::As<api::Node>(*found->second));
      AdoptNodeStatus(*fresh, *current);
      fresh = std::move(current);
    }
    WriteObject(adopt ? WriteKind::kUpdateStatus : WriteKind::kCreate, *nodes_res_,
                std::move(fresh),
                [this, slot, adopt, tally, total, log_every, now](Result<api::ObjectPtr> r) {
                  if (r.ok()) {
                    OnNodeRegistered(slot, *r);
                    if (!adopt) CompleteStatusIfDropped(slot, *r, now);
                    if (adopt) {
                      std::lock_guard<std::mutex> lock(mu_);
                      ++stats_.nodes_adopted;
                    }
                  }
                  StatusCode code = r.status().code();
                  int done;
                  {
                    std::lock_guard<std::mutex> lock(tally->mu);
                    done = ++tally->done;
                    if (code == StatusCode::kAlreadyExists || code == StatusCode::kConflict) {
                      tally->raced.push_back(slot);  // created or changed since our list
                    } else if (!r.ok()) {
                      if (tally->failed++ == 0) tally->first_error = r.status();
                    }
                  }
                  if (done % log_every == 0 || done == total) {
                    Log("node registrations answered: " + std::to_string(done) + "/" +
                        std::to_string(total));
                  }
                });
  }
  pipeline_.WaitIdle(kRegisterTimeout);
  std::lock_guard<std::mutex> lock(tally->mu);
  raced = tally->raced;
  std::sort(raced.begin(), raced.end());
  failed += tally->failed;
  if (first_error.ok()) first_error = tally->first_error;
}

// The rare nodes that changed between our list and our write: read and adopt them one by one.
void NodeSimulator::Impl::AdoptNodes(const std::vector<uint32_t>& raced, int& failed,
                                     Status& first_error) {
  Time now = clock_.Now();
  for (uint32_t slot : raced) {
    const SimNode& n = *nodes_[slot];
    Result<api::ObjectPtr> put = client::UpdateWithRetry(
        client_, *nodes_res_, "", n.name, client::Write::kStatus,
        [&](const api::Object& current) -> Result<client::Desired> {
          const auto* existing = api::As<api::Node>(current);
          if (!existing) return InternalError("not a Node");
          auto node = std::make_unique<api::Node>(*existing);
          AdoptNodeStatus(*MakeNode(options_.shape, n.name, n.index, now), *node);
          return client::Desired(std::move(node));
        });
    Status st = put.ok() ? Status::Ok() : put.status();
    if (put.ok()) {
      OnNodeRegistered(slot, *put);
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.nodes_adopted;
    }
    if (!st.ok()) {
      if (failed++ == 0) first_error = st;
      std::lock_guard<std::mutex> lock(mu_);
      RecordErrorLocked(st, "adopting node " + n.name);
    }
  }
}

void NodeSimulator::Impl::OnNodeRegistered(uint32_t slot, const api::ObjectPtr& node) {
  std::lock_guard<std::mutex> lock(mu_);
  SimNode& n = *nodes_[slot];
  n.uid = node->metadata.uid;
  if (!n.registered) ++stats_.nodes;
  n.registered = true;
}

// A kubelet creates its Node with its status in one request, and kube-apiserver keeps it. A
// server that resets status on create (as it does for most kinds) gets the status in a second
// write, so registration works either way; it then costs one more write per node.
void NodeSimulator::Impl::CompleteStatusIfDropped(uint32_t slot, const api::ObjectPtr& created,
                                                  Time now) {
  const api::Node* node = api::As<api::Node>(*created);
  if (node == nullptr || !node->status.capacity.empty()) return;
  const SimNode& n = *nodes_[slot];
  auto fixed = std::make_unique<api::Node>(*node);
  fixed->status = MakeNode(options_.shape, n.name, n.index, now)->status;
  WriteObject(WriteKind::kUpdateStatus, *nodes_res_, std::move(fixed),
              [this, slot](Result<api::ObjectPtr> r) {
                if (r.ok()) return OnNodeRegistered(slot, *r);
                std::lock_guard<std::mutex> lock(mu_);
                RecordErrorLocked(r.status(), "writing the status of node " + nodes_[slot]->name);
              });
}

// Creates each registered node's lease, or renews the one it already has.
void NodeSimulator::Impl::WriteLeases(
    const std::unordered_map<uint32_t, api::ObjectPtr>& existing) {
  Time now = clock_.Now();
  const int32_t duration = options_.lease_duration_seconds;
  for (const auto& node : nodes_) {
    std::string uid;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!node->registered) continue;
      uid = node->uid;
      node->lease_busy = true;
    }
    uint32_t slot = node->slot;
    auto found = existing.find(slot);
    bool renew = found != existing.end();
    std::unique_ptr<api::Object> lease =
        renew ? RenewedLease(*api::As<api::Lease>(*found->second), uid, duration, now)
              : MakeNodeLease(node->name, uid, duration, now);
    WriteObject(renew ? WriteKind::kUpdate : WriteKind::kCreate, *leases_res_, std::move(lease),
                [this, slot](Result<api::ObjectPtr> r) { OnLeaseWritten(slot, std::move(r)); });
  }
  pipeline_.WaitIdle(kRegisterTimeout);
}

void NodeSimulator::Impl::ScheduleHeartbeats(Time now) {
  const int64_t lease_s = options_.lease_renew_interval.count();
  const int64_t status_s = options_.node_status_interval.count();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& node : nodes_) {
    Due lease{.kind = Due::Kind::kLease, .node = node->slot};
    lease.at = Plus(now, std::chrono::seconds(1 + node->slot % lease_s));
    ScheduleLocked(lease.at, lease);
    Due status{.kind = Due::Kind::kNodeStatus, .node = node->slot};
    status.at = Plus(now, std::chrono::seconds(1 + node->slot % status_s));
    ScheduleLocked(status.at, status);
  }
}

Time NodeSimulator::Impl::NextPeriod(Time due, std::chrono::seconds interval, Time now) const {
  const int64_t step = std::chrono::microseconds(interval).count();
  if (due.unix_micros > now.unix_micros) return due;
  int64_t periods = (now.unix_micros - due.unix_micros) / step + 1;
  return Time{due.unix_micros + periods * step};
}

// --- leases -----------------------------------------------------------------------------------

void NodeSimulator::Impl::RenewLease(uint32_t slot, Time now) {
  SimNode& n = *nodes_[slot];
  api::ObjectPtr lease;
  std::string uid;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!n.registered || n.lease_busy) return;
    n.lease_busy = true;
    lease = n.lease;
    uid = n.uid;
  }
  if (!lease) {
    Result<api::ObjectPtr> got = client_.Get(*leases_res_, kNodeLeaseNamespace, n.name);
    if (got.ok()) {
      lease = *got;
    } else if (got.status().code() != StatusCode::kNotFound) {
      OnLeaseWritten(slot, got.status());
      return;
    }
  }
  std::unique_ptr<api::Object> next =
      lease ? RenewedLease(*api::As<api::Lease>(*lease), uid, options_.lease_duration_seconds, now)
            : MakeNodeLease(n.name, uid, options_.lease_duration_seconds, now);
  WriteObject(lease ? WriteKind::kUpdate : WriteKind::kCreate, *leases_res_, std::move(next),
              [this, slot](Result<api::ObjectPtr> r) { OnLeaseWritten(slot, std::move(r)); });
}

void NodeSimulator::Impl::OnLeaseWritten(uint32_t slot, Result<api::ObjectPtr> result) {
  std::lock_guard<std::mutex> lock(mu_);
  SimNode& n = *nodes_[slot];
  n.lease_busy = false;
  if (result.ok()) {
    n.lease = *result;
    ++stats_.lease_renewals;
    return;
  }
  n.lease = nullptr;  // fetch it again before the next renewal
  StatusCode code = result.status().code();
  RecordErrorLocked(result.status(), "lease " + n.name);
  // Someone else wrote it meanwhile: renew from the fresh copy at once rather than letting the
  // lease age a whole interval. Other errors wait for the next regular renewal.
  if (code == StatusCode::kConflict || code == StatusCode::kAlreadyExists) {
    ScheduleLocked(clock_.Now(), Due{.kind = Due::Kind::kLeaseRetry, .node = slot});
  }
}

// --- status heartbeats and re-registration ----------------------------------------------------

void NodeSimulator::Impl::SendHeartbeat(uint32_t slot, Time now) {
  const SimNode& n = *nodes_[slot];
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!n.registered) {
      // Registration failed earlier (server down, rejected): try again once per interval.
      if (!n.registering) ScheduleLocked(now, Due{.kind = Due::Kind::kRegister, .node = slot});
      return;
    }
  }
  std::string name = n.name;
  std::string patch = NodeHeartbeatPatch(now);
  Write<api::ObjectPtr>(
      [this, name, patch](client::Callback<api::ObjectPtr> cb) {
        client_.PatchAsync(*nodes_res_, "", name, client::PatchKind::kStrategicMerge, patch,
                           /*status=*/true, std::move(cb));
      },
      [this, slot](Result<api::ObjectPtr> r) {
        std::lock_guard<std::mutex> lock(mu_);
        SimNode& n = *nodes_[slot];
        if (r.ok()) {
          ++stats_.node_heartbeats;
          return;
        }
        RecordErrorLocked(r.status(), "heartbeat " + n.name);
        if (r.status().code() == StatusCode::kNotFound && n.registered) {
          // Deleted behind our back: a kubelet registers its node again.
          n.registered = false;
          n.uid.clear();
          n.lease = nullptr;
          --stats_.nodes;
          ScheduleLocked(clock_.Now(), Due{.kind = Due::Kind::kRegister, .node = slot});
        }
      });
}

void NodeSimulator::Impl::Reregister(uint32_t slot, Time now) {
  SimNode& n = *nodes_[slot];
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (n.registered || n.registering) return;
    n.registering = true;
  }
  std::unique_ptr<api::Node> fresh = MakeNode(options_.shape, n.name, n.index, now);
  Result<api::ObjectPtr> got = client_.Get(*nodes_res_, "", n.name);
  bool create = !got.ok() && got.status().code() == StatusCode::kNotFound;
  if (got.ok()) {
    auto node = std::make_unique<api::Node>(*api::As<api::Node>(**got));
    AdoptNodeStatus(*fresh, *node);
    fresh = std::move(node);
  } else if (!create) {
    std::lock_guard<std::mutex> lock(mu_);
    n.registering = false;
    RecordErrorLocked(got.status(), "re-registering node " + n.name);
    ScheduleLocked(Plus(now, kRegisterRetry), Due{.kind = Due::Kind::kRegister, .node = slot});
    return;
  }
  WriteObject(create ? WriteKind::kCreate : WriteKind::kUpdateStatus, *nodes_res_, std::move(fresh),
              [this, slot, create, now](Result<api::ObjectPtr> r) {
                if (r.ok()) OnNodeRegistered(slot, *r);
                if (r.ok() && create) CompleteStatusIfDropped(slot, *r, now);
                std::lock_guard<std::mutex> lock(mu_);
                SimNode& n = *nodes_[slot];
                n.registering = false;
                if (r.ok()) {
                  ScheduleLocked(clock_.Now(), Due{.kind = Due::Kind::kLeaseRetry, .node = slot});
                  return;
                }
                RecordErrorLocked(r.status(), "re-registering node " + n.name);
                ScheduleLocked(Plus(clock_.Now(), kRegisterRetry),
                               Due{.kind = Due::Kind::kRegister, .node = slot});
              });
}

}  // namespace allot::node

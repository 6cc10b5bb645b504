#include "scheduler/cache/cache.h"

#include <algorithm>

namespace allot::scheduler {

// --- Snapshot -----------------------------------------------------------------------------------

const NodeInfo* Snapshot::Get(std::string_view name) const {
  auto it = map_.find(name);
  if (it == map_.end() || it->second->node() == nullptr) return nullptr;
  return it->second.get();
}

std::unique_ptr<Snapshot> Snapshot::FromObjects(
    const std::vector<std::shared_ptr<const api::Node>>& nodes,
    const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  FakeClock clock;
  Cache cache(clock, std::chrono::milliseconds(0));
  for (const auto& n : nodes) cache.AddNode(n);
  for (const auto& p : pods) {
    if (!p->spec.nodeName.empty()) cache.AddPod(PodInfo::Make(p));
  }
  auto snapshot = std::make_unique<Snapshot>();
  cache.UpdateSnapshot(*snapshot);
  return snapshot;
}

// --- Cache --------------------------------------------------------------------------------------

Cache::Cache(Clock& clock, std::chrono::milliseconds assumed_ttl)
    : clock_(clock), assumed_ttl_(assumed_ttl) {}

Cache::NodeItem& Cache::ItemFor(const std::string& name) {
  auto it = nodes_.find(name);
  if (it != nodes_.end()) return it->second;
  recency_.push_front(name);
  NodeItem& item = nodes_[name];
  item.info = std::make_unique<NodeInfo>();
  if (free_indexes_.empty()) {
    item.info->set_index(next_index_++);
  } else {
    item.info->set_index(free_indexes_.back());
    free_indexes_.pop_back();
  }
  item.recency = recency_.begin();
  return item;
}

void Cache::Touched(NodeItem& item) { recency_.splice(recency_.begin(), recency_, item.recency); }

void Cache::MaybeDropItem(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.info->node() || !it->second.info->pods().empty() ||
      !it->second.info->reservations().empty()) {
    return;
  }
  recency_.erase(it->second.recency);
  free_indexes_.push_back(it->second.info->index());
  nodes_.erase(it);
  items_dropped_ = true;
}

void Cache::AddPodLocked(const PodInfoPtr& pod, const std::string& node) {
  NodeItem& item = ItemFor(node);
  item.info->AddPod(pod);
  Touched(item);
}

void Cache::RemovePodLocked(std::string_view uid, const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  it->second.info->RemovePod(uid);
  Touched(it->second);
  MaybeDropItem(node);
}

allot::Status Cache::AssumePod(PodInfoPtr pod, const std::string& node) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pods_.count(pod->uid())) {
    return allot::Status(StatusCode::kAlreadyExists, "pod " + pod->namespace_() + "/" +
                                                         pod->name() + "(" + pod->uid() +
                                                         ") is in the cache, so can't be assumed");
  }
  AddPodLocked(pod, node);
  PodState& st = SetPodLocked(std::move(pod));
  st.node = node;
  st.assumed = true;
  ++assumed_count_;
  return allot::Status::Ok();
}

void Cache::FinishBinding(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end() || !it->second.assumed) return;
  it->second.binding_finished = true;
  it->second.deadline = clock_.Steady() + assumed_ttl_;
}

void Cache::ForgetPod(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end() || !it->second.assumed) return;
  RemovePodLocked(uid, it->second.node);
  pods_.erase(it);
  --assumed_count_;
}

void Cache::AddPod(PodInfoPtr pod) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(pod->uid());
  if (it != pods_.end()) {
    // The assumed pod is confirmed (or a known pod re-added): count the real object.
    RemovePodLocked(pod->uid(), it->second.node);
    if (it->second.assumed) --assumed_count_;
  }
  const std::string& node = pod->pod->spec.nodeName;  // lives as long as the entry's pod
  AddPodLocked(pod, node);
  PodState& st = SetPodLocked(std::move(pod));
  st.node = node;
  st.assumed = false;
  st.binding_finished = false;
  st.deadline.reset();
}

void Cache::UpdatePod(PodInfoPtr pod) { AddPod(std::move(pod)); }

void Cache::RemovePod(const api::Pod& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(pod.metadata.uid);
  if (it == pods_.end()) return;
  RemovePodLocked(pod.metadata.uid, it->second.node);
  if (it->second.assumed) --assumed_count_;
  pods_.erase(it);
}

// --- reservations -------------------------------------------------------------------------------

void Cache::AddReservation(ReservationInfoPtr reservation) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string uid = reservation->uid;
  // The reserve pod assumed when it was scheduled: the reservation itself now holds the node.
  if (auto it = pods_.find(uid); it != pods_.end()) {
    RemovePodLocked(uid, it->second.node);
    if (it->second.assumed) --assumed_count_;
    pods_.erase(it);
  }
  if (auto it = reservations_.find(uid);
      it != reservations_.end() && it->second != reservation->node) {
    RemoveReservationLocked(uid);
  }
  const std::string node = reservation->node;
  NodeItem& item = ItemFor(node);
  item.info->AddReservation(std::move(reservation));
  Touched(item);
  reservations_[uid] = node;
}

void Cache::RemoveReservation(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  RemoveReservationLocked(uid);
}

void Cache::RemoveReservationLocked(const std::string& uid) {
  auto it = reservations_.find(uid);
  if (it == reservations_.end()) return;
  const std::string node = it->second;
  reservations_.erase(it);
  auto n = nodes_.find(node);
  if (n == nodes_.end()) return;
  n->second.info->RemoveReservation(uid);
  Touched(n->second);
  MaybeDropItem(node);
}

size_t Cache::ReservationCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reservations_.size();
}

Cache::PodState& Cache::SetPodLocked(PodInfoPtr pod) {
  auto it = pods_.find(pod->uid());
  if (it == pods_.end()) it = pods_.emplace(UidKey{pod->uid()}, PodState{}).first;
  it->second.pod = std::move(pod);  // may free the PodInfo the key viewed: re-point it now
  it->first.uid = it->second.pod->uid();
  return it->second;
}

void Cache::ReplacePodLocked(PodState& st, PodInfoPtr pod) {
  NodeItem& item = ItemFor(st.node);
  item.info->RemovePod(pod->uid());
  item.info->AddPod(pod);
  Touched(item);
  SetPodLocked(std::move(pod));
}

allot::Status Cache::AssignToReservation(const std::string& pod_uid,
                                         const std::string& reservation_uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end()) return allot::NotFoundError("pods", pod_uid);
  auto r = reservations_.find(reservation_uid);
  if (r == reservations_.end() || r->second != it->second.node) {
    return allot::NotFoundError("reservations.scheduling.koordinator.sh", reservation_uid);
  }
  if (it->second.pod->allocated_from() == reservation_uid) return allot::Status::Ok();
  ReplacePodLocked(it->second, it->second.pod->WithAllocatedFrom(reservation_uid));
  return allot::Status::Ok();
}

void Cache::UnassignFromReservation(const std::string& pod_uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end() || it->second.pod->allocated_from().empty()) return;
  ReplacePodLocked(it->second, it->second.pod->WithAllocatedFrom(""));
}

// --- nodes --------------------------------------------------------------------------------------

void Cache::AddNode(std::shared_ptr<const api::Node> node) {
  std::lock_guard<std::mutex> lock(mu_);
  NodeItem& item = ItemFor(node->metadata.name);
  if (!item.info->node()) {
    node_order_.push_back(node->metadata.name);
    order_changed_ = true;
  }
  item.info->SetNode(std::move(node));
  Touched(item);
}

void Cache::UpdateNode(std::shared_ptr<const api::Node> node) { AddNode(std::move(node)); }

void Cache::RemoveNode(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end() || !it->second.info->node()) return;
  it->second.info->ClearNode();
  Touched(it->second);
  node_order_.erase(std::find(node_order_.begin(), node_order_.end(), name));
  order_changed_ = true;
  MaybeDropItem(name);
}

void Cache::UpdateSnapshot(Snapshot& snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t newest = snapshot.generation_;
  for (const std::string& name : recency_) {
    const NodeInfo& info = *nodes_.find(name)->second.info;
    if (info.generation() <= snapshot.generation_) break;
    newest = std::max(newest, info.generation());
    auto [it, inserted] = snapshot.map_.try_emplace(name);
    if (inserted) {
      it->second = std::make_unique<NodeInfo>(info);
      order_changed_ = true;
    } else {
      *it->second = info;
    }
  }
  snapshot.generation_ = newest;
  if (items_dropped_ || snapshot.map_.size() > nodes_.size()) {
    for (auto it = snapshot.map_.begin(); it != snapshot.map_.end();) {
      it = nodes_.count(it->first) ? std::next(it) : snapshot.map_.erase(it);
    }
    items_dropped_ = false;
    order_changed_ = true;
  }
  if (order_changed_ || snapshot.list_.size() != node_order_.size()) {
    snapshot.list_.clear();
    for (const std::string& name : node_order_) snapshot.list_.push_back(snapshot.map_[name].get());
    order_changed_ = false;
  }
}

void Cache::CleanupExpiredAssumedPods() {
  std::lock_guard<std::mutex> lock(mu_);
  auto now = clock_.Steady();
  for (auto it = pods_.begin(); it != pods_.end();) {
    const PodState& st = it->second;
    if (st.assumed && st.binding_finished && st.deadline && now > *st.deadline) {
      RemovePodLocked(it->first.uid, st.node);
      --assumed_count_;
      it = pods_.erase(it);
    } else {
      ++it;
    }
  }
}

bool Cache::IsAssumed(const std::string& uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  return it != pods_.end() && it->second.assumed;
}

std::optional<std::string> Cache::NodeOf(const std::string& uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end()) return std::nullopt;
  return it->second.node;
}

size_t Cache::NodeCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return node_order_.size();
}

size_t Cache::PodCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_.size();
}

size_t Cache::AssumedPodCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return assumed_count_;
}

std::optional<NodeInfo> Cache::GetNodeInfo(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return std::nullopt;
  return *it->second.info;
}

}  // namespace allot::scheduler

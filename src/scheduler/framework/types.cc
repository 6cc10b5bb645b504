#include "scheduler/framework/types.h"

#include <algorithm>
#include <atomic>

#include "api/koordinator/annotations.h"
#include "scheduler/framework/reservation_info.h"

namespace allot::scheduler {

namespace {

using api::Quantity;
using api::ResourceList;

void AddHostPorts(const api::Container& c, std::vector<HostPort>& out) {
  for (const api::ContainerPort& p : c.ports) {
    if (p.hostPort <= 0) continue;
    out.push_back(HostPort{p.hostIP.empty() ? "0.0.0.0" : p.hostIP,
                           p.protocol.empty() ? "TCP" : p.protocol, p.hostPort});
  }
}

// `r` limited to the resources `mask` has (non-zero): what an owner takes from its reservation.
Resource MaskTo(const Resource& r, const Resource& mask) {
  Resource out;
  if (mask.milli_cpu) out.milli_cpu = r.milli_cpu;
  if (mask.memory) out.memory = r.memory;
  if (mask.ephemeral_storage) out.ephemeral_storage = r.ephemeral_storage;
  for (const auto& [name, v] : mask.scalars) {
    if (v) out.SetScalar(name, r.Scalar(name));
  }
  return out;
}

}  // namespace

bool IsScalarResourceName(std::string_view name) {
  return name.find('/') != std::string_view::npos || name.starts_with("hugepages-") ||
         name.starts_with("attachable-volumes-");
}

// --- Resource -----------------------------------------------------------------------------------

Resource Resource::FromList(const ResourceList& list) {
  Resource r;
  for (const auto& [name, q] : list) {
    if (name == kResourceCpu) {
      r.milli_cpu += q.MilliValue();
    } else if (name == kResourceMemory) {
      r.memory += q.Value();
    } else if (name == kResourceEphemeralStorage) {
      r.ephemeral_storage += q.Value();
    } else if (name == kResourcePods) {
      r.allowed_pods += q.Value();
    } else if (IsScalarResourceName(name)) {
      r.SetScalar(name, r.Scalar(name) + q.Value());
    }
  }
  return r;
}

int64_t Resource::Get(std::string_view name) const {
  if (name == kResourceCpu) return milli_cpu;
  if (name == kResourceMemory) return memory;
  if (name == kResourceEphemeralStorage) return ephemeral_storage;
  if (name == kResourcePods) return allowed_pods;
  return Scalar(name);
}

int64_t Resource::Scalar(std::string_view name) const {
  auto it = std::lower_bound(scalars.begin(), scalars.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  return it != scalars.end() && it->first == name ? it->second : 0;
}

void Resource::SetScalar(std::string_view name, int64_t value) {
  auto it = std::lower_bound(scalars.begin(), scalars.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  if (it != scalars.end() && it->first == name) {
    it->second = value;
  } else {
    scalars.emplace(it, std::string(name), value);
  }
}

void Resource::Add(const Resource& o) {
  milli_cpu += o.milli_cpu;
  memory += o.memory;
  ephemeral_storage += o.ephemeral_storage;
  allowed_pods += o.allowed_pods;
  for (const auto& [name, v] : o.scalars) SetScalar(name, Scalar(name) + v);
}

void Resource::Sub(const Resource& o) {
  milli_cpu -= o.milli_cpu;
  memory -= o.memory;
  ephemeral_storage -= o.ephemeral_storage;
  allowed_pods -= o.allowed_pods;
  for (const auto& [name, v] : o.scalars) SetScalar(name, Scalar(name) - v);
}

bool Resource::IsZero() const {
  if (milli_cpu || memory || ephemeral_storage || allowed_pods) return false;
  for (const auto& [name, v] : scalars) {
    if (v != 0) return false;
  }
  return true;
}

// --- HostPortInfo -------------------------------------------------------------------------------

void HostPortInfo::Add(const HostPort& p) { ports_.push_back(p); }

void HostPortInfo::Remove(const HostPort& p) {
  auto it = std::find(ports_.begin(), ports_.end(), p);
  if (it != ports_.end()) ports_.erase(it);
}

bool HostPortInfo::Conflicts(const HostPort& p) const {
  for (const HostPort& u : ports_) {
    if (u.port != p.port || u.protocol != p.protocol) continue;
    if (p.ip == "0.0.0.0" || u.ip == "0.0.0.0" || u.ip == p.ip) return true;
  }
  return false;
}

// --- PodInfo ------------------------------------------------------------------------------------

std::shared_ptr<const PodInfo> PodInfo::Make(std::shared_ptr<const api::Pod> pod) {
  auto info = std::make_shared<PodInfo>();
  info->requests = Resource::FromList(api::PodRequests(*pod, false));
  info->non_zero_requests = Resource::FromList(api::PodRequests(*pod, true));
  std::vector<HostPort> ports;
  for (const api::Container& c : pod->spec.containers) AddHostPorts(c, ports);
  for (const api::Container& c : pod->spec.initContainers) {
    if (api::IsRestartableInitContainer(c)) AddHostPorts(c, ports);
  }
  if (!ports.empty()) info->edit_rare().host_ports = std::move(ports);
  info->priority = pod->spec.priority.value_or(0);
  static const std::string kAllocated(api::kAnnotationReservationAllocated);  // once, not per pod
  auto ann = pod->metadata.annotations.find(kAllocated);
  if (ann != pod->metadata.annotations.end()) {
    if (auto r = api::ParseReservationAllocated(ann->second)) {
      info->edit_rare().allocated_from = r->uid;
    }
  }
  info->pod = std::move(pod);
  return info;
}

const PodInfo::Rare& PodInfo::rare() const {
  static const Rare kNone;
  return rare_ ? *rare_ : kNone;
}

std::shared_ptr<const PodInfo> PodInfo::WithAllocatedFrom(std::string reservation_uid) const {
  auto copy = std::make_shared<PodInfo>(*this);
  if (!reservation_uid.empty() || copy->rare_) {
    copy->edit_rare().allocated_from = std::move(reservation_uid);
  }
  return copy;
}

// --- ReservedSlot -------------------------------------------------------------------------------

Resource ReservedSlot::Remaining() const {
  const Resource& a = info->allocatable;
  Resource out;
  out.milli_cpu = std::max<int64_t>(0, a.milli_cpu - allocated.milli_cpu);
  out.memory = std::max<int64_t>(0, a.memory - allocated.memory);
  out.ephemeral_storage = std::max<int64_t>(0, a.ephemeral_storage - allocated.ephemeral_storage);
  for (const auto& [name, v] : a.scalars) {
    out.SetScalar(name, std::max<int64_t>(0, v - allocated.Scalar(name)));
  }
  return out;
}

// --- NodeInfo -----------------------------------------------------------------------------------

int64_t NextGeneration() {
  static std::atomic<int64_t> generation{0};
  return generation.fetch_add(1, std::memory_order_relaxed) + 1;
}

void NodeInfo::SetNode(std::shared_ptr<const api::Node> node) {
  const api::NodeStatus& st = node->status;
  allocatable_ = Resource::FromList(st.allocatable.empty() ? st.capacity : st.allocatable);
  name_ = node->metadata.name;
  unschedulable_ = node->spec.unschedulable;
  taints_ = node->spec.taints;
  node_ = std::move(node);
  Touch();
}

void NodeInfo::ClearNode() {
  node_.reset();
  allocatable_ = Resource{};
  unschedulable_ = false;
  taints_.clear();
  Touch();
}

void NodeInfo::AddPod(PodInfoPtr pod) {
  requested_.Add(pod->requests);
  non_zero_requested_.Add(pod->non_zero_requests);
  for (const HostPort& p : pod->host_ports()) used_ports_.Add(p);
  if (!pod->allocated_from().empty()) {
    if (ReservedSlot* slot = MutableReservation(pod->allocated_from())) {
      Resource before = slot->Held();
      slot->allocated.Add(MaskTo(pod->requests, slot->info->allocatable));
      ++slot->owners;
      Recharge(before, *slot);
    }
  }
  if (name_.empty()) name_ = pod->pod->spec.nodeName;
  pods_.push_back(std::move(pod));
  Touch();
}

bool NodeInfo::RemovePod(std::string_view uid) {
  for (size_t i = 0; i < pods_.size(); ++i) {
    if (pods_[i]->uid() != uid) continue;
    const PodInfo& p = *pods_[i];
    requested_.Sub(p.requests);
    non_zero_requested_.Sub(p.non_zero_requests);
    for (const HostPort& hp : p.host_ports()) used_ports_.Remove(hp);
    if (!p.allocated_from().empty()) {
      if (ReservedSlot* slot = MutableReservation(p.allocated_from())) {
        Resource before = slot->Held();
        slot->allocated.Sub(MaskTo(p.requests, slot->info->allocatable));
        --slot->owners;
        Recharge(before, *slot);
      }
    }
    pods_[i] = std::move(pods_.back());
    pods_.pop_back();
    Touch();
    return true;
  }
  return false;
}

const ReservedSlot* NodeInfo::FindReservation(std::string_view uid) const {
  for (const ReservedSlot& s : reservations_) {
    if (s.info->uid == uid) return &s;
  }
  return nullptr;
}

ReservedSlot* NodeInfo::MutableReservation(std::string_view uid) {
  return const_cast<ReservedSlot*>(FindReservation(uid));
}

void NodeInfo::Recharge(const Resource& before, const ReservedSlot& slot) {
  Resource after = slot.Held();
  requested_.Sub(before);
  requested_.Add(after);
  non_zero_requested_.Sub(before);
  non_zero_requested_.Add(after);
  Touch();
}

void NodeInfo::AddReservation(std::shared_ptr<const ReservationInfo> info) {
  RemoveReservation(info->uid);
  ReservedSlot slot;
  slot.info = std::move(info);
  for (const PodInfoPtr& p : pods_) {
    if (p->allocated_from() != slot.info->uid) continue;
    slot.allocated.Add(MaskTo(p->requests, slot.info->allocatable));
    ++slot.owners;
  }
  for (const HostPort& p : slot.info->host_ports) used_ports_.Add(p);
  Resource held = slot.Held();
  requested_.Add(held);
  non_zero_requested_.Add(held);
  reservations_.push_back(std::move(slot));
  Touch();
}

bool NodeInfo::RemoveReservation(std::string_view uid) {
  for (size_t i = 0; i < reservations_.size(); ++i) {
    const ReservedSlot& s = reservations_[i];
    if (s.info->uid != uid) continue;
    Resource held = s.Held();
    requested_.Sub(held);
    non_zero_requested_.Sub(held);
    if (!s.released) {
      for (const HostPort& p : s.info->host_ports) used_ports_.Remove(p);
    }
    reservations_.erase(reservations_.begin() + static_cast<std::ptrdiff_t>(i));
    Touch();
    return true;
  }
  return false;
}

void NodeInfo::ReleaseReservation(std::string_view uid) {
  ReservedSlot* slot = MutableReservation(uid);
  if (!slot || slot->released) return;
  Resource before = slot->Held();
  slot->released = true;
  for (const HostPort& p : slot->info->host_ports) used_ports_.Remove(p);
  Recharge(before, *slot);
}

void DefaultNormalizeScore(int64_t max_priority, bool reverse, std::span<NodeScore> scores) {
  int64_t max_count = 0;
  for (const NodeScore& s : scores) max_count = std::max(max_count, s.score);
  if (max_count == 0) {
    if (reverse) {
      for (NodeScore& s : scores) s.score = max_priority;
    }
    return;
  }
  for (NodeScore& s : scores) {
    int64_t v = max_priority * s.score / max_count;
    s.score = reverse ? max_priority - v : v;
  }
}

}  // namespace allot::scheduler

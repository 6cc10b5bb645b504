#include "scheduler/framework/reservation_info.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "api/koordinator/annotations.h"
#include "api/koordinator/owners.h"

namespace allot::scheduler {

namespace {

constexpr std::string_view kDefaultScheduler = "default-scheduler";

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

AllocatePolicy PolicyOf(std::string_view s) {
  if (s == api::kReservationAllocatePolicyAligned) return AllocatePolicy::kAligned;
  if (s == api::kReservationAllocatePolicyRestricted) return AllocatePolicy::kRestricted;
  return AllocatePolicy::kDefault;
}

bool Terminal(const api::Reservation& r) {
  return r.status.phase == api::kReservationSucceeded || r.status.phase == api::kReservationFailed;
}

// The resources `held` names (non-zero), narrowed by the reservation-restricted-options
// annotation when it parses and lists any (names it does not hold are ignored).
std::vector<std::string> RestrictedResourcesOf(const api::Reservation& r, const Resource& held) {
  std::vector<std::string> names;
  if (held.milli_cpu) names.emplace_back(kResourceCpu);
  if (held.memory) names.emplace_back(kResourceMemory);
  if (held.ephemeral_storage) names.emplace_back(kResourceEphemeralStorage);
  for (const auto& [name, v] : held.scalars) {
    if (v) names.push_back(name);
  }
  auto it = r.metadata.annotations.find(std::string(api::kAnnotationReservationRestrictedOptions));
  if (it == r.metadata.annotations.end()) return names;
  auto opts = api::ParseReservationRestrictedOptions(it->second);
  if (!opts.ok() || opts->resources.empty()) return names;
  std::erase_if(names, [&](const std::string& n) {
    return std::find(opts->resources.begin(), opts->resources.end(), n) == opts->resources.end();
  });
  return names;
}

}  // namespace

std::shared_ptr<const api::Pod> MakeReservePod(const api::Reservation& r) {
  auto pod = std::make_shared<api::Pod>();
  const api::ReservationPodTemplate empty;
  const api::ReservationPodTemplate& t = r.spec.template_ ? *r.spec.template_ : empty;
  pod->metadata.name = r.metadata.name;
  pod->metadata.namespace_ = t.metadata.namespace_.empty() ? "default" : t.metadata.namespace_;
  pod->metadata.uid = r.metadata.uid;
  pod->metadata.creationTimestamp = r.metadata.creationTimestamp;
  pod->metadata.labels = t.metadata.labels;
  for (const auto& [k, v] : r.metadata.labels) pod->metadata.labels[k] = v;
  pod->metadata.annotations = t.metadata.annotations;
  for (const auto& [k, v] : r.metadata.annotations) pod->metadata.annotations[k] = v;
  pod->metadata.annotations[std::string(api::kAnnotationReservePod)] = "true";
  pod->metadata.annotations[std::string(api::kAnnotationReservationName)] = r.metadata.name;
  pod->spec = t.spec;
  if (!pod->spec.nodeName.empty()) {
    pod->metadata.annotations[std::string(api::kAnnotationReservationNode)] = pod->spec.nodeName;
    pod->spec.nodeName.clear();
  }
  pod->status.resourceClaimStatuses = r.status.resourceClaimStatuses;
  if (pod->spec.schedulerName.empty()) pod->spec.schedulerName = kDefaultScheduler;
  if (!pod->spec.priority) {
    auto label = pod->metadata.labels.find(std::string(api::kLabelKoordinatorPriority));
    std::optional<int64_t> p;
    if (label != pod->metadata.labels.end()) p = ParseInt(label->second);
    pod->spec.priority =
        p && *p >= std::numeric_limits<int32_t>::min() && *p <= std::numeric_limits<int32_t>::max()
            ? static_cast<int32_t>(*p)
            : std::numeric_limits<int32_t>::max();
  }
  pod->status.phase = "Pending";
  return pod;
}

std::shared_ptr<const ReservationInfo> ReservationInfo::Make(
    std::shared_ptr<const api::Reservation> object) {
  auto info = std::make_shared<ReservationInfo>();
  const api::Reservation& r = *object;
  info->uid = r.metadata.uid;
  info->name = r.metadata.name;
  info->node = r.status.nodeName;
  if (r.spec.template_) info->pinned_node = r.spec.template_->spec.nodeName;
  if (!r.status.allocatable.empty()) {
    info->allocatable = Resource::FromList(r.status.allocatable);
  } else if (r.spec.template_) {
    api::Pod pod;
    pod.spec = r.spec.template_->spec;
    info->allocatable = Resource::FromList(api::PodRequests(pod, false));
  }
  if (r.spec.template_) {
    for (const api::Container& c : r.spec.template_->spec.containers) {
      for (const api::ContainerPort& p : c.ports) {
        if (p.hostPort <= 0) continue;
        info->host_ports.push_back(HostPort{p.hostIP.empty() ? "0.0.0.0" : p.hostIP,
                                            p.protocol.empty() ? "TCP" : p.protocol, p.hostPort});
      }
    }
  }
  info->policy = PolicyOf(r.spec.allocatePolicy);
  if (info->policy == AllocatePolicy::kRestricted) {
    info->restricted_resources = RestrictedResourcesOf(r, info->allocatable);
  }
  info->allocate_once = api::ReservationAllocateOnce(r.spec);
  info->unschedulable = r.spec.unschedulable;
  info->pre_allocation = r.spec.preAllocation;
  info->holds_devices = r.spec.template_ && !r.spec.template_->spec.resourceClaims.empty();
  auto order = r.metadata.labels.find(std::string(api::kLabelReservationOrder));
  if (order != r.metadata.labels.end()) info->order = ParseInt(order->second).value_or(0);
  info->object = std::move(object);
  return info;
}

bool ReservationInfo::IsAvailable() const {
  return !node.empty() && object->status.phase == api::kReservationAvailable &&
         !object->metadata.rare->deletionTimestamp;
}

bool ReservationInfo::IsWaiting() const {
  return !node.empty() && object->status.phase == api::kReservationWaiting &&
         !object->metadata.rare->deletionTimestamp;
}

bool ReservationInfo::NeedsScheduling() const {
  return node.empty() && !Terminal(*object) && !object->metadata.rare->deletionTimestamp &&
         object->spec.template_.has_value() && !object->spec.owners.empty();
}

const OwnerReservations::OnNode* OwnerReservations::For(std::string_view node) const {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), node,
                             [](const OnNode& n, std::string_view name) { return n.node < name; });
  return it != nodes.end() && it->node == node ? &*it : nullptr;
}

PodInfoPtr MakeReservePodInfo(ReservationInfoPtr info) {
  auto pod = MakeReservePod(*info->object);
  auto base = PodInfo::Make(std::move(pod));
  auto out = std::make_shared<PodInfo>(*base);
  out->edit_rare().reservation = std::move(info);
  return out;
}

QueueingHint RequeueOwnersOfAPlacedReservation(const api::Pod& pod, const api::Object* old_obj,
                                               const api::Object* new_obj) {
  auto available = [](const api::Object* o) -> const api::Reservation* {
    const api::Reservation* r = o ? api::As<api::Reservation>(*o) : nullptr;
    bool placed = r && !r->status.nodeName.empty() &&
                  r->status.phase == api::kReservationAvailable;
    return placed ? r : nullptr;
  };
  const api::Reservation* r = available(new_obj);
  if (!r || available(old_obj)) return QueueingHint::kQueueSkip;
  return api::ReservationOwnerMatcher::Make(*r).Matches(pod) ? QueueingHint::kQueue
                                                              : QueueingHint::kQueueSkip;
}

}  // namespace allot::scheduler

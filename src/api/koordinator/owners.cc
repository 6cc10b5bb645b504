#include "api/koordinator/owners.h"

#include "api/koordinator/annotations.h"

namespace allot::api {

namespace {

bool ObjectMatches(const ObjectReference& o, const Pod& pod) {
  if (!o.uid.empty() && o.uid != pod.metadata.uid) return false;
  if (!o.name.empty() && o.name != pod.metadata.name) return false;
  if (!o.namespace_.empty() && o.namespace_ != pod.metadata.namespace_) return false;
  if (!o.apiVersion.empty() && o.apiVersion != "v1") return false;
  return true;
}

bool ControllerMatches(const ReservationControllerReference& c, const Pod& pod) {
  if (!c.namespace_.empty() && c.namespace_ != pod.metadata.namespace_) return false;
  for (const OwnerReference& ref : pod.metadata.ownerReferences) {
    if (ref.uid == c.uid && (c.name.empty() || ref.name == c.name)) return true;
  }
  return false;
}

std::optional<std::string_view> AllocatedAnnotation(const Pod& pod) {
  static const std::string kKey(kAnnotationReservationAllocated);
  auto it = pod.metadata.annotations.find(kKey);
  if (it == pod.metadata.annotations.end()) return std::nullopt;
  return std::string_view(it->second);
}

}  // namespace

ReservationOwnerMatcher ReservationOwnerMatcher::Make(const Reservation& r) {
  ReservationOwnerMatcher m;
  for (const ReservationOwner& o : r.spec.owners) {
    Entry e;
    e.object = o.object;
    e.controller = o.controller;
    if (o.labelSelector) {
      auto sel = LabelSelectorExpr::FromLabelSelector(*o.labelSelector);
      e.selector = sel.ok() ? *sel : LabelSelectorExpr::Nothing();
    }
    m.entries_.push_back(std::move(e));
  }
  return m;
}

bool ReservationOwnerMatcher::Matches(const Pod& pod) const {
  for (const Entry& e : entries_) {
    if (!e.object && !e.controller && !e.selector) continue;  // an empty entry matches nobody
    if (e.object && !ObjectMatches(*e.object, pod)) continue;
    if (e.controller && !ControllerMatches(*e.controller, pod)) continue;
    if (e.selector && !e.selector->Matches(pod.metadata.labels)) continue;
    return true;
  }
  return false;
}

Status AdmitReservationAllocated(const Pod& pod, const Pod* old, const ObjectReader& objects) {
  std::optional<std::string_view> value = AllocatedAnnotation(pod);
  if (!value) return Status::Ok();
  if (old && AllocatedAnnotation(*old) == value) return Status::Ok();  // as admitted before
  std::optional<ReservationAllocated> named = ParseReservationAllocated(*value);
  if (!named) return Status::Ok();
  ObjectPtr found = objects.Get(ResourceFor<Reservation>(), "", named->name);
  const auto* r = found ? As<Reservation>(*found) : nullptr;
  // A pod being created has no uid yet: one its body claims (the store assigns its own) must
  // not make it an owner by uid.
  Pod judged_copy;
  const Pod* judged = &pod;
  if (!old && !pod.metadata.uid.empty()) {
    judged_copy = pod;
    judged_copy.metadata.uid.clear();
    judged = &judged_copy;
  }
  if (!r || r->metadata.uid != named->uid || !ReservationOwnerMatcher::Make(*r).Matches(*judged)) {
    return ForbiddenError("pods", pod.metadata.name,
                          "pod is not an owner of reservation \"" + named->name + "\" (" +
                              std::string(kAnnotationReservationAllocated) + ")");
  }
  return Status::Ok();
}

}  // namespace allot::api

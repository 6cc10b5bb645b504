#include "apiserver/admission/restriction.h"

#include <algorithm>
#include <vector>

#include "api/core/pod.h"
#include "api/rbac/bootstrap_policy.h"
#include "api/resource/types.h"

namespace allot::apiserver::admission {

namespace {

constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";

bool InGroup(const authn::UserInfo& user, std::string_view group) {
  return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
}

// The name of `obj`, else the name in the URL.
const std::string& NameOf(const authz::Attributes& a, const api::Object* obj) {
  return obj && !obj->metadata.name.empty() ? obj->metadata.name : a.name;
}

std::vector<api::AllocatedDeviceStatus> OthersEntries(const api::ResourceClaim& c,
                                                      const std::string& driver) {
  std::vector<api::AllocatedDeviceStatus> out;
  for (const auto& d : c.status.devices) {
    if (d.driver != driver) out.push_back(d);
  }
  return out;
}

// Whether every device of the allocation (if any) is of `driver`.
bool AllocationIsOf(const api::ResourceClaim& c, const std::string& driver) {
  if (!c.status.allocation) return true;
  for (const auto& r : c.status.allocation->devices.results) {
    if (r.driver != driver) return false;
  }
  return true;
}

// Finalizers in `a` and not in `b`.
std::vector<std::string> Missing(const std::vector<api::InternedString>& a,
                                 const std::vector<api::InternedString>& b) {
  std::vector<std::string> out;
  for (const auto& f : a) {
    if (std::find(b.begin(), b.end(), f) == b.end()) out.push_back(f);
  }
  return out;
}

}  // namespace

std::optional<Restriction> Restriction::For(const authn::UserInfo& user) {
  const std::string_view name = user.name;
  if (name.starts_with(api::kNodeUserPrefix) && InGroup(user, api::kNodesGroup)) {
    return Restriction(Kind::kNode, std::string(name.substr(api::kNodeUserPrefix.size())));
  }
  if (name.starts_with(api::kDriverUserPrefix) && InGroup(user, api::kDriversGroup)) {
    return Restriction(Kind::kDriver, std::string(name.substr(api::kDriverUserPrefix.size())));
  }
  return std::nullopt;
}

Status Restriction::Forbidden(const authz::Attributes& a, const api::Object* about,
                              const std::string& why) const {
  std::string msg = a.resource;
  const std::string& name = NameOf(a, about);
  if (!name.empty()) msg += " \"" + name + "\"";
  msg += " is forbidden: ";
  msg += kind_ == Kind::kNode ? "node \"" : "driver \"";
  msg += name_ + "\" " + why;
  Status st(StatusCode::kForbidden, std::move(msg));
  StatusDetails d;
  d.name = name;
  d.group = a.api_group;
  d.kind = a.resource;
  st.WithDetails(std::move(d));
  return st;
}

Status Restriction::CheckRequest(const authz::Attributes& a) const {
  if (kind_ != Kind::kNode || !a.resource_request) return Status::Ok();
  if (a.verb == "get" || a.verb == "list" || a.verb == "watch") return Status::Ok();
  if (a.api_group.empty() && a.resource == "nodes" && !a.name.empty() && a.name != name_) {
    return Forbidden(a, nullptr, "may only modify its own Node object");
  }
  if (a.api_group == "coordination.k8s.io" && a.resource == "leases" &&
      (a.namespace_ != kNodeLeaseNamespace || (!a.name.empty() && a.name != name_))) {
    return Forbidden(a, nullptr, "may only modify its own Lease in kube-node-lease");
  }
  return Status::Ok();
}

Status Restriction::CheckWrite(const authz::Attributes& a, const api::Object* old,
                               const api::Object* obj) const {
  return kind_ == Kind::kNode ? CheckNodeWrite(a, old, obj) : CheckDriverWrite(a, old, obj);
}

Status Restriction::CheckNodeWrite(const authz::Attributes& a, const api::Object* old,
                                   const api::Object* obj) const {
  if (a.api_group.empty() && a.resource == "nodes") {
    if (NameOf(a, obj) != name_) return Forbidden(a, obj, "may only modify its own Node object");
  } else if (a.api_group == "coordination.k8s.io" && a.resource == "leases") {
    if (NameOf(a, obj) != name_ || a.namespace_ != kNodeLeaseNamespace) {
      return Forbidden(a, obj, "may only modify its own Lease in kube-node-lease");
    }
  } else if (a.api_group.empty() && a.resource == "pods") {
    // Status writes and deletes: the pod must be bound to this node, before the write.
    const auto* pod = dynamic_cast<const api::Pod*>(old);
    if (!pod) return Forbidden(a, obj, "may not create pods");
    if (pod->spec.nodeName != name_) {
      return Forbidden(a, old,
                       "may only modify pods bound to it (spec.nodeName \"" + name_ + "\")");
    }
  } else if (a.api_group == "resource.k8s.io" && a.resource == "resourceslices") {
    for (const api::Object* o : {old, obj}) {
      const auto* slice = dynamic_cast<const api::ResourceSlice*>(o);
      if (!o || (slice && slice->spec.nodeName == name_)) continue;
      return Forbidden(a, o, "may only modify ResourceSlices with spec.nodeName \"" + name_ + "\"");
    }
  }
  return Status::Ok();
}

Status Restriction::CheckDriverWrite(const authz::Attributes& a, const api::Object* old,
                                     const api::Object* obj) const {
  if (a.api_group != "resource.k8s.io") return Status::Ok();
  if (a.resource == "resourceslices") {
    for (const api::Object* o : {old, obj}) {
      const auto* slice = dynamic_cast<const api::ResourceSlice*>(o);
      if (!o || (slice && slice->spec.driver == name_)) continue;
      return Forbidden(a, o, "may only modify ResourceSlices with spec.driver \"" + name_ + "\"");
    }
    return Status::Ok();
  }
  if (a.resource != "resourceclaims") return Status::Ok();
  const auto* before = dynamic_cast<const api::ResourceClaim*>(old);
  const auto* after = dynamic_cast<const api::ResourceClaim*>(obj);
  if (!before || !after) return Forbidden(a, obj ? obj : old, "may not create or delete claims");
  if (a.subresource == "status") {
    if (OthersEntries(*before, name_) != OthersEntries(*after, name_)) {
      return Forbidden(
          a, after, "may only change its own entries in status.devices (driver \"" + name_ + "\")");
    }
    if (before->status.allocation != after->status.allocation &&
        (!AllocationIsOf(*before, name_) || !AllocationIsOf(*after, name_))) {
      return Forbidden(a, after, "may only allocate or deallocate devices of its own");
    }
    return Status::Ok();
  }
  const std::string own = name_ + "/";
  for (const auto* change : {&before->metadata.finalizers, &after->metadata.finalizers}) {
    const auto& other = change == &before->metadata.finalizers ? after->metadata.finalizers
                                                               : before->metadata.finalizers;
    for (const std::string& f : Missing(*change, other)) {
      if (!f.starts_with(own)) {
        return Forbidden(
            a, after,
            "may only add or remove its own finalizers (\"" + own + "...\"), not \"" + f + "\"");
      }
    }
  }
  return Status::Ok();
}

}  // namespace allot::apiserver::admission

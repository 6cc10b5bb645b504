#include "apiserver/admission/restriction.h"

#include <algorithm>
#include <vector>

#include "api/core/pod.h"
#include "api/core/node.h"
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

// Whether `c` is allocated, and only with `driver`'s devices (or by it, as a KEP-3063 controller).
bool OwnsAllocation(const api::ResourceClaim& c, const std::string& driver) {
  if (!c.status.allocation) return false;
  const std::string& controller = c.status.allocation->controllerName;
  return (controller.empty() || controller == driver) && AllocationIsOf(c, driver);
}

// Labels set in one map and not the same in the other.
std::vector<std::string> ModifiedLabels(const api::StringMap& a, const api::StringMap& b) {
  std::vector<std::string> out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end() || it->second != v) out.push_back(k);
  }
  for (const auto& [k, v] : b) {
    if (a.find(k) == a.end()) out.push_back(k);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string_view LabelNamespace(std::string_view key) {
  const size_t slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view() : key.substr(0, slash);
}

bool InLabelNamespace(std::string_view ns, std::string_view domain) {
  return ns == domain || (ns.size() > domain.size() && ns.ends_with(domain) &&
                          ns[ns.size() - domain.size() - 1] == '.');
}

// The labels a kubelet sets on its Node (k8s.io/kubelet's IsKubeletLabel).
bool IsKubeletLabel(std::string_view key) {
  static constexpr std::string_view kLabels[] = {
      "kubernetes.io/hostname",
      "topology.kubernetes.io/zone",
      "topology.kubernetes.io/region",
      "failure-domain.beta.kubernetes.io/zone",
      "failure-domain.beta.kubernetes.io/region",
      "beta.kubernetes.io/instance-type",
      "node.kubernetes.io/instance-type",
      "kubernetes.io/os",
      "kubernetes.io/arch",
      "beta.kubernetes.io/os",
      "beta.kubernetes.io/arch",
  };
  if (std::find(std::begin(kLabels), std::end(kLabels), key) != std::end(kLabels)) return true;
  const std::string_view ns = LabelNamespace(key);
  return InLabelNamespace(ns, "kubelet.kubernetes.io") || InLabelNamespace(ns, "node.kubernetes.io");
}

// Of `labels`, those a node may not set on its Node (NodeRestriction): the
// node-restriction.kubernetes.io/ namespace, and kubernetes.io / k8s.io labels but the
// kubelet's own.
std::vector<std::string> ForbiddenNodeLabels(const std::vector<std::string>& labels) {
  std::vector<std::string> out;
  for (const std::string& key : labels) {
    const std::string_view ns = LabelNamespace(key);
    const bool kubernetes =
        InLabelNamespace(ns, "kubernetes.io") || InLabelNamespace(ns, "k8s.io");
    if (InLabelNamespace(ns, "node-restriction.kubernetes.io") ||
        (kubernetes && !IsKubeletLabel(key))) {
      out.push_back(key);
    }
  }
  return out;
}

std::string JoinComma(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
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
  if (!a.resource_request) return Status::Ok();
  if (a.verb == "get" || a.verb == "list" || a.verb == "watch") return Status::Ok();
  if (name_.empty()) {
    // "system:node:" or "system:dra-driver:": whose objects these are cannot be told.
    Status st(StatusCode::kForbidden,
              a.resource + (a.name.empty() ? "" : " \"" + a.name + "\"") +
                  " is forbidden: could not determine " + (kind_ == Kind::kNode ? "node" : "driver") +
                  " from user \"" + a.user.name + "\"");
    StatusDetails d;
    d.name = a.name;
    d.group = a.api_group;
    d.kind = a.resource;
    st.WithDetails(std::move(d));
    return st;
  }
  if (kind_ != Kind::kNode) return Status::Ok();
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
    ALLOT_RETURN_IF_ERROR(CheckOwnNode(a, old, obj));
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
    // Which claims a pod's templates produced is the resourceclaim controller's to say.
    const auto* next = dynamic_cast<const api::Pod*>(obj);
    if (next && next->status.resourceClaimStatuses != pod->status.resourceClaimStatuses) {
      return Forbidden(a, obj, "is not allowed to modify resourceClaimStatuses");
    }
    if (next && next->status.rare->extendedResourceClaimStatus !=
                    pod->status.rare->extendedResourceClaimStatus) {
      return Forbidden(a, obj, "is not allowed to modify extendedResourceClaimStatus");
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

Status Restriction::CheckOwnNode(const authz::Attributes& a, const api::Object* old,
                                 const api::Object* obj) const {
  const auto* node = dynamic_cast<const api::Node*>(obj);
  if (!node || a.subresource == "status") return Status::Ok();  // a status write keeps the rest
  const auto* before = dynamic_cast<const api::Node*>(old);
  if (!before) {
    std::vector<std::string> labels;
    for (const auto& [k, v] : node->metadata.labels) labels.push_back(k);
    std::sort(labels.begin(), labels.end());
    if (auto forbidden = ForbiddenNodeLabels(labels); !forbidden.empty()) {
      return Forbidden(a, obj, "is not allowed to set the following labels: " + JoinComma(forbidden));
    }
    return Status::Ok();
  }
  if (node->spec.taints != before->spec.taints) {
    return Forbidden(a, obj, "is not allowed to modify taints");
  }
  if (node->metadata.ownerReferences != before->metadata.ownerReferences) {
    return Forbidden(a, obj, "is not allowed to modify ownerReferences");
  }
  std::vector<std::string> forbidden =
      ForbiddenNodeLabels(ModifiedLabels(node->metadata.labels, before->metadata.labels));
  if (!forbidden.empty()) {
    // (kube-apiserver's words, without the node's name this once.)
    return ForbiddenError(a.resource, NameOf(a, obj),
                          "is not allowed to modify labels: " + JoinComma(forbidden));
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
    // Who holds a claim, and whether it is to be freed: only for an allocation of its own (the
    // KEP-3063 controller reserves the pod it allocated for, and clears the request it served).
    if ((before->status.reservedFor != after->status.reservedFor ||
         before->status.deallocationRequested != after->status.deallocationRequested) &&
        !OwnsAllocation(*before, name_) && !OwnsAllocation(*after, name_)) {
      return Forbidden(a, after,
                       "may only change status.reservedFor and status.deallocationRequested of "
                       "claims allocated with its own devices");
    }
    return Status::Ok();
  }
  // The main object: nothing but its own finalizers.
  {
    api::ResourceClaim same = *after;
    same.metadata.finalizers = before->metadata.finalizers;
    same.metadata.resourceVersion = before->metadata.resourceVersion;
    // managedFields are the server's record of the write itself.
    same.metadata.rare.set(&api::ObjectMetaRare::managedFields,
                           before->metadata.rare->managedFields);
    same.metadata.rare.compact();
    same.status = before->status;
    if (!(same.metadata == before->metadata) || !(same.spec == before->spec)) {
      return Forbidden(a, after, "may only add or remove its own finalizers of a claim");
    }
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

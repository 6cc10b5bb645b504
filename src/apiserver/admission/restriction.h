// Node and driver restriction: RBAC lets every node and every DRA driver write the kinds their
// work needs (api/rbac/bootstrap_policy.h); these checks then hold each identity to its own
// objects, as Kubernetes' Node authorizer and NodeRestriction admission do for kubelets.
//
//   a node      user system:node:NAME in group system:nodes, writes only
//                 - the Node NAME (and its status), creating it without and changing none of
//                   the labels kubelets may not set (node-restriction.kubernetes.io/*, and
//                   kubernetes.io / k8s.io labels but the kubelet's own: hostname, os, arch,
//                   zone, region, instance type, kubelet. and node. namespaces), and changing
//                   neither its taints nor its ownerReferences,
//                 - the Lease kube-node-lease/NAME,
//                 - the status of pods bound to NAME (spec.nodeName) but their
//                   resourceClaimStatuses and extendedResourceClaimStatus, and deletes only
//                   those pods,
//                 - ResourceSlices whose spec.nodeName is NAME (before and after the write);
//   a driver    user system:dra-driver:NAME in group system:dra-drivers, writes only
//                 - ResourceSlices whose spec.driver is NAME (before and after the write),
//                 - in a ResourceClaim's status, the entries of status.devices of driver NAME
//                   (others must stay as they are), an allocation only of NAME's devices, and
//                   reservedFor and deallocationRequested only of claims allocated with them,
//                 - of a claim itself, only its finalizers named "NAME/...".
// A user system:node: or system:dra-driver: without a name may write nothing ("could not
// determine node from user ...").
// Everyone else is not restricted here. A write outside these bounds is 403 Forbidden, naming
// the object and the rule, and nothing is written.
//
// Requests are checked twice: CheckRequest before anything is read (what the URL says), and
// CheckWrite with the stored object and the object to be written (on updates inside the
// store's compare-and-swap, so the object judged is the object replaced).
#pragma once

#include <optional>
#include <string>

#include "api/machinery/object.h"
#include "apiserver/authn/authenticator.h"
#include "apiserver/authz/attributes.h"
#include "common/status.h"

namespace allot::apiserver::admission {

class Restriction {
 public:
  enum class Kind { kNode, kDriver };

  // The restriction that applies to `user`, if any.
  static std::optional<Restriction> For(const authn::UserInfo& user);

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }

  // What the request's URL alone decides (a node naming another Node or Lease).
  Status CheckRequest(const authz::Attributes& request) const;
  // A write: `old` is the stored object (null for a create), `obj` the object to be written
  // (null for a delete).
  Status CheckWrite(const authz::Attributes& request, const api::Object* old,
                    const api::Object* obj) const;

 private:
  Restriction(Kind kind, std::string name) : kind_(kind), name_(std::move(name)) {}
  Status CheckNodeWrite(const authz::Attributes& a, const api::Object* old,
                        const api::Object* obj) const;
  // A node's own Node: NodeRestriction's rules for labels, taints and ownerReferences.
  Status CheckOwnNode(const authz::Attributes& a, const api::Object* old,
                      const api::Object* obj) const;
  Status CheckDriverWrite(const authz::Attributes& a, const api::Object* old,
                          const api::Object* obj) const;
  Status Forbidden(const authz::Attributes& a, const api::Object* about,
                   const std::string& why) const;

  Kind kind_;
  std::string name_;
};

}  // namespace allot::apiserver::admission

// Impersonation: a request that carries Impersonate-User (with optional Impersonate-Group,
// repeated, Impersonate-Uid and Impersonate-Extra-<key>) is served as that user, once the
// authenticated requester is found to be allowed to act as it — kube-apiserver 1.37's filter,
// with constrained impersonation (KEP-5284, beta and on by default there) ahead of the legacy
// `impersonate` verb. `kubectl --as=jane --as-group=dev` sends these headers.
//
// Modes, tried in this order; the first that allows decides, and when none does the first
// refusal is the answer:
//   arbitrary-node   only a user name system:node:<node>: `impersonate-on:arbitrary-node:<verb>`
//                    on what the request does, and `impersonate:arbitrary-node` on nodes <node>
//                    (group authentication.k8s.io); the user gets the group system:nodes.
//   serviceaccount   only a user name system:serviceaccount:<ns>:<sa>: the same with
//                    `...:serviceaccount...` on serviceaccounts <sa> in <ns>; the groups are
//                    system:serviceaccounts and system:serviceaccounts:<ns>.
//   user-info        any other user: `impersonate-on:user-info:<verb>` on the request, and
//                    `impersonate:user-info` on users <name>, uids <uid>, groups <g> (never
//                    system:masters or ""), userextras/<key> <value>.
//   legacy           `impersonate` on users <name> (or serviceaccounts <sa> in <ns>), groups
//                    <g>, and, in authentication.k8s.io, uids <uid> and userextras/<key> <value>
//                    (all in the core group "" for users, groups and serviceaccounts).
// (The associated-node mode needs a service account requester bound to a node, which Allot does
// not authenticate; it never applies.) A non-anonymous user also gets system:authenticated,
// unless it asked for system:unauthenticated; system:anonymous gets system:unauthenticated.
//
// A refusal is 403 with kube-apiserver's message (authz/authorizer.h, ForbiddenStatus):
//   users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group ""
//   at the cluster scope
// Groups, a uid or extras without a user are 400.
#pragma once

#include <optional>
#include <string>

#include "apiserver/authn/authenticator.h"
#include "apiserver/authz/attributes.h"
#include "apiserver/authz/authorizer.h"
#include "apiserver/transport/http_types.h"
#include "common/status.h"

namespace allot::apiserver::authz {

// Who a request asks to act as, from its headers (name, uid, groups in order, extras by key:
// lower-cased and percent-decoded). nullopt: the request impersonates nobody. Errors: groups, a
// uid or extras without Impersonate-User (400).
Result<std::optional<authn::UserInfo>> ImpersonationRequested(const Request& req);

struct Impersonated {
  authn::UserInfo user;
  // The constrained mode's verb that allowed it ("impersonate:user-info", ...), for the audit
  // log's authenticationMetadata; "" for the legacy verb.
  std::string constraint;
};

// What a request served as another user remembers of it: who authenticated, and how it was
// allowed (the audit log records both identities).
struct Impersonation {
  authn::UserInfo requester;
  std::string constraint;
};

// Whether `request.user` (the requester) may act as `wanted` for what `request` asks; the user
// to serve the request as, with the groups the mode gives it. Errors: 403.
Result<Impersonated> Impersonate(const Authorizer& authorizer, const Attributes& request,
                                 const authn::UserInfo& wanted);

}  // namespace allot::apiserver::authz

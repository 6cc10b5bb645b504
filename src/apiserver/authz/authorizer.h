// Authorization: whether a request's user may do what it asks (authz/attributes.h), decided as
// kube-apiserver's authorizer chain decides it. Each authorizer allows, denies or has no
// opinion; the first that allows or denies settles it, and a request nobody allowed is
// forbidden (403).
//
// The chain `allot serve` builds (docs/security.md, Authorization):
//   1. the privileged group system:masters may do anything (as kube-apiserver's
//      --authorization-mode always starts);
//   2. RBAC (authz/rbac_authorizer.h).
// Node and driver identities are then held to their own objects by the restriction checks of
// apiserver/admission/restriction.h, which see the objects written.
//
// Thread safety: Authorize is called concurrently from every io thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/authz/attributes.h"
#include "common/status.h"

namespace allot::apiserver::authz {

inline constexpr std::string_view kMastersGroup = "system:masters";

enum class Decision { kNoOpinion, kAllow, kDeny };

struct Verdict {
  Decision decision = Decision::kNoOpinion;
  std::string reason;  // why, for SubjectAccessReview's status.reason and 403 messages
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Verdict Authorize(const Attributes& request) const = 0;
};

// Asks each authorizer in order; the first that allows or denies decides. All without an
// opinion: kNoOpinion (which the server treats as forbidden).
class AuthorizerChain final : public Authorizer {
 public:
  explicit AuthorizerChain(std::vector<std::shared_ptr<const Authorizer>> chain)
      : chain_(std::move(chain)) {}
  Verdict Authorize(const Attributes& request) const override;

 private:
  std::vector<std::shared_ptr<const Authorizer>> chain_;
};

// Allows every request of a member of `group` (system:masters); no opinion otherwise.
class PrivilegedGroupAuthorizer final : public Authorizer {
 public:
  explicit PrivilegedGroupAuthorizer(std::string group = std::string(kMastersGroup))
      : group_(std::move(group)) {}
  Verdict Authorize(const Attributes& request) const override;

 private:
  std::string group_;
};

// The 403 kube-apiserver answers a request its authorizers did not allow:
//   pods "p" is forbidden: User "u" cannot get resource "pods" in API group "" in the
//   namespace "ns"[: reason]
//   nodes is forbidden: User "u" cannot list resource "nodes" in API group "" at the cluster
//   scope
//   forbidden: User "u" cannot get path "/metrics"
// with details {name, group, kind: resource}.
Status ForbiddenStatus(const Attributes& request, std::string_view reason);

}  // namespace allot::apiserver::authz

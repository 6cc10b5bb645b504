// RBAC: a request is allowed when a rule of a role bound to its user allows it
// (authz/rule_match.h). ClusterRoleBindings grant their ClusterRole everywhere; a RoleBinding
// grants its Role, or a ClusterRole's rules, in its own namespace only. A subject names the
// user, one of its groups, or a service account (user system:serviceaccount:<ns>:<name>; the
// binding's namespace when the subject names none). RBAC never denies: a request no rule
// allows gets no opinion, and the server answers 403.
//
// The roles and bindings come from the store and are read again only after one of them
// changed: watches on the four kinds mark the policy stale, and the next request rebuilds it
// (a grant is in force for the first request after its write was acknowledged). For each user
// (name and groups) the rules its bindings grant are gathered once per policy generation and
// kept; a decision then only matches those rules.
//
// Thread safety: all methods are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "api/machinery/resources.h"
#include "api/rbac/rbac.h"
#include "apiserver/authz/authorizer.h"
#include "store/store.h"

namespace allot::apiserver::authz {

class RbacAuthorizer final : public Authorizer {
 public:
  // Errors: the registry does not serve rbac.authorization.k8s.io/v1 (500).
  static Result<std::shared_ptr<RbacAuthorizer>> Create(store::Store& store,
                                                        const api::ResourceRegistry& registry);
  ~RbacAuthorizer() override;

  Verdict Authorize(const Attributes& request) const override;

  // The rules `user` holds in `namespace_` (cluster-wide grants, then that namespace's), for
  // SelfSubjectRulesReview. "" : the cluster-wide grants only.
  std::vector<api::PolicyRule> RulesFor(const authn::UserInfo& user,
                                        std::string_view namespace_) const;

  // How many times the policy was read from the store (tests: caching).
  uint64_t builds() const { return builds_.load(); }

  struct Policy;
  struct UserRules;

 private:
  RbacAuthorizer(store::Store& store, std::vector<const api::ResourceInfo*> kinds);
  std::shared_ptr<const UserRules> RulesOf(const authn::UserInfo& user) const;
  std::shared_ptr<Policy> Current() const;
  void Rebuild(uint64_t seen) const;
  bool WatchAll() const;

  store::Store& store_;
  const std::vector<const api::ResourceInfo*> kinds_;  // roles, clusterroles, and bindings

  // Bumped by the watches (on the store's committer thread) whenever a role or binding changed.
  std::shared_ptr<std::atomic<uint64_t>> changes_;
  mutable std::atomic<uint64_t> builds_{0};
  mutable std::mutex mu_;
  mutable std::shared_ptr<Policy> policy_;                       // guarded by mu_
  mutable std::vector<std::unique_ptr<api::Watcher>> watchers_;  // guarded by mu_
};

}  // namespace allot::apiserver::authz

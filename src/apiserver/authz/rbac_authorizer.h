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

// One generation of the roles and bindings, as decisions see it. Immutable once read (the rules
// it gathers per user are cached inside it) and never reads the store: a write's checks may
// consult it inside the store's compare-and-swap, where the store must not be called.
class RbacPolicy {
 public:
  // Whether a rule bound to the request's user allows it.
  bool Allows(const Attributes& request) const;

  // The rules `user` holds in `namespace_` (cluster-wide grants, then that namespace's), each
  // once. "" : the cluster-wide grants only.
  std::vector<api::PolicyRule> RulesFor(const authn::UserInfo& user,
                                        std::string_view namespace_) const;

  // The rules a binding in `binding_namespace` ("" for a ClusterRoleBinding) grants through
  // `ref`. Errors: the role does not exist (404, as kube-apiserver's role getter answers).
  Result<std::vector<api::PolicyRule>> RoleReferenceRules(const api::RoleRef& ref,
                                                          std::string_view binding_namespace) const;

  struct Data;

 private:
  friend class RbacAuthorizer;
  struct UserRules;
  explicit RbacPolicy(std::shared_ptr<Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const UserRules> RulesOf(const authn::UserInfo& user) const;

  std::shared_ptr<Data> data_;
};

class RbacAuthorizer final : public Authorizer {
 public:
  // Errors: the registry does not serve rbac.authorization.k8s.io/v1 (500).
  static Result<std::shared_ptr<RbacAuthorizer>> Create(store::Store& store,
                                                        const api::ResourceRegistry& registry);
  ~RbacAuthorizer() override;

  Verdict Authorize(const Attributes& request) const override;

  // The policy as of now: read again from the store if a role or binding changed since the
  // last read.
  RbacPolicy Snapshot() const;

  // Snapshot().RulesFor(user, namespace_), for SelfSubjectRulesReview.
  std::vector<api::PolicyRule> RulesFor(const authn::UserInfo& user,
                                        std::string_view namespace_) const;

  // How many times the policy was read from the store (tests: caching).
  uint64_t builds() const { return builds_.load(); }

 private:
  RbacAuthorizer(store::Store& store, std::vector<const api::ResourceInfo*> kinds);
  void Rebuild(uint64_t seen) const;
  bool WatchAll() const;

  store::Store& store_;
  const std::vector<const api::ResourceInfo*> kinds_;  // roles, clusterroles, and bindings

  // Bumped by the watches (on the store's committer thread) whenever a role or binding changed.
  std::shared_ptr<std::atomic<uint64_t>> changes_;
  mutable std::atomic<uint64_t> builds_{0};
  mutable std::mutex mu_;
  mutable std::shared_ptr<RbacPolicy::Data> policy_;             // guarded by mu_
  mutable std::vector<std::unique_ptr<api::Watcher>> watchers_;  // guarded by mu_
};

}  // namespace allot::apiserver::authz

#include "apiserver/authz/rbac_authorizer.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "api/machinery/validation.h"
#include "apiserver/authz/rule_match.h"

namespace allot::apiserver::authz {

using api::ClusterRole;
using api::ClusterRoleBinding;
using api::PolicyRule;
using api::Role;
using api::RoleBinding;
using api::Subject;

namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";
// Users cached per policy generation; beyond this the cache starts over (the set of users is
// bounded by the credentials the cluster issued, so this is only a guard).
constexpr size_t kMaxCachedUsers = 4096;

std::string NamespacedKey(std::string_view ns, std::string_view name) {
  std::string k;
  k.reserve(ns.size() + 1 + name.size());
  k.append(ns).push_back('/');
  k.append(name);
  return k;
}

bool AppliesTo(const Subject& s, const authn::UserInfo& user, std::string_view binding_ns) {
  if (s.kind == "User") return s.name == user.name;
  if (s.kind == "Group") {
    return std::find(user.groups.begin(), user.groups.end(), s.name) != user.groups.end();
  }
  if (s.kind == "ServiceAccount") {
    std::string_view ns = s.namespace_.empty() ? binding_ns : std::string_view(s.namespace_);
    std::string_view n = user.name;
    return n.size() == kServiceAccountPrefix.size() + ns.size() + 1 + s.name.size() &&
           n.starts_with(kServiceAccountPrefix) &&
           n.substr(kServiceAccountPrefix.size(), ns.size()) == ns &&
           n[kServiceAccountPrefix.size() + ns.size()] == ':' && n.ends_with(s.name);
  }
  return false;
}

template <class Binding>
bool Binds(const Binding& b, const authn::UserInfo& user) {
  for (const Subject& s : b.subjects) {
    if (AppliesTo(s, user, b.metadata.namespace_)) return true;
  }
  return false;
}

bool AnyAllows(const std::vector<PolicyRule>& rules, const Attributes& a) {
  for (const PolicyRule& r : rules) {
    if (RuleAllows(a, r)) return true;
  }
  return false;
}

std::string UserKey(const authn::UserInfo& user) {
  std::string k = user.name;
  for (const std::string& g : user.groups) {
    k.push_back('\0');
    k += g;
  }
  return k;
}

}  // namespace

struct RbacPolicy::UserRules {
  std::vector<PolicyRule> cluster;
  std::unordered_map<std::string, std::vector<PolicyRule>> by_namespace;
};

struct RbacPolicy::Data {
  uint64_t generation = 0;
  std::unordered_map<std::string, std::vector<PolicyRule>> cluster_roles;  // by name
  std::unordered_map<std::string, std::vector<PolicyRule>> roles;          // by "ns/name"
  std::vector<std::shared_ptr<const ClusterRoleBinding>> cluster_bindings;
  std::vector<std::shared_ptr<const RoleBinding>> role_bindings;

  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const UserRules>> users;  // guarded by mu

  // The rules `ref` names for a binding in `ns`; null when the role does not exist.
  const std::vector<PolicyRule>* Referenced(const api::RoleRef& ref, std::string_view ns) const {
    if (ref.kind == "ClusterRole") {
      auto it = cluster_roles.find(ref.name);
      return it == cluster_roles.end() ? nullptr : &it->second;
    }
    if (ref.kind == "Role" && !ns.empty()) {
      auto it = roles.find(NamespacedKey(ns, ref.name));
      return it == roles.end() ? nullptr : &it->second;
    }
    return nullptr;
  }

  std::shared_ptr<const UserRules> Gather(const authn::UserInfo& user) const {
    auto out = std::make_shared<UserRules>();
    for (const auto& b : cluster_bindings) {
      if (b->roleRef.kind != "ClusterRole" || !Binds(*b, user)) continue;
      // A binding to a missing role grants nothing.
      if (const auto* rules = Referenced(b->roleRef, "")) {
        out->cluster.insert(out->cluster.end(), rules->begin(), rules->end());
      }
    }
    for (const auto& b : role_bindings) {
      if (!Binds(*b, user)) continue;
      const std::vector<PolicyRule>* rules = Referenced(b->roleRef, b->metadata.namespace_);
      if (!rules) continue;
      auto& into = out->by_namespace[b->metadata.namespace_];
      into.insert(into.end(), rules->begin(), rules->end());
    }
    return out;
  }
};

std::shared_ptr<const RbacPolicy::UserRules> RbacPolicy::RulesOf(
    const authn::UserInfo& user) const {
  std::string key = UserKey(user);
  {
    std::lock_guard<std::mutex> lock(data_->mu);
    auto it = data_->users.find(key);
    if (it != data_->users.end()) return it->second;
  }
  std::shared_ptr<const UserRules> rules = data_->Gather(user);
  std::lock_guard<std::mutex> lock(data_->mu);
  if (data_->users.size() >= kMaxCachedUsers) data_->users.clear();
  data_->users.emplace(std::move(key), rules);
  return rules;
}

bool RbacPolicy::Allows(const Attributes& a) const {
  std::shared_ptr<const UserRules> rules = RulesOf(a.user);
  if (AnyAllows(rules->cluster, a)) return true;
  if (a.resource_request && !a.namespace_.empty()) {
    auto it = rules->by_namespace.find(a.namespace_);
    if (it != rules->by_namespace.end() && AnyAllows(it->second, a)) return true;
  }
  return false;
}

std::vector<PolicyRule> RbacPolicy::RulesFor(const authn::UserInfo& user,
                                             std::string_view namespace_) const {
  std::shared_ptr<const UserRules> rules = RulesOf(user);
  std::vector<PolicyRule> out;
  auto add = [&](const std::vector<PolicyRule>& from) {
    for (const PolicyRule& r : from) {
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);  // one of each
    }
  };
  add(rules->cluster);
  if (!namespace_.empty()) {
    auto it = rules->by_namespace.find(std::string(namespace_));
    if (it != rules->by_namespace.end()) add(it->second);
  }
  return out;
}

Result<std::vector<PolicyRule>> RbacPolicy::RoleReferenceRules(
    const api::RoleRef& ref, std::string_view binding_namespace) const {
  if (const auto* rules = data_->Referenced(ref, binding_namespace)) return *rules;
  if (ref.kind == "Role" || ref.kind == "ClusterRole") {
    return NotFoundError(ref.kind == "Role" ? "roles.rbac.authorization.k8s.io"
                                            : "clusterroles.rbac.authorization.k8s.io",
                         ref.name);
  }
  return InternalError("unsupported role reference kind: " + api::Quote(ref.kind));
}

Result<std::shared_ptr<RbacAuthorizer>> RbacAuthorizer::Create(
    store::Store& store, const api::ResourceRegistry& registry) {
  std::vector<const api::ResourceInfo*> kinds;
  for (const char* resource : {"roles", "clusterroles", "rolebindings", "clusterrolebindings"}) {
    const api::ResourceInfo* r = registry.Find(api::kRbacGroup, "v1", resource);
    if (!r) return InternalError(std::string("the registry does not serve ") + resource);
    kinds.push_back(r);
  }
  return std::shared_ptr<RbacAuthorizer>(new RbacAuthorizer(store, std::move(kinds)));
}

RbacAuthorizer::RbacAuthorizer(store::Store& store, std::vector<const api::ResourceInfo*> kinds)
    : store_(store),
      kinds_(std::move(kinds)),
      changes_(std::make_shared<std::atomic<uint64_t>>(1)) {}

RbacAuthorizer::~RbacAuthorizer() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& w : watchers_) w->Stop();
}

bool RbacAuthorizer::WatchAll() const {
  for (auto& w : watchers_) w->Stop();
  watchers_.clear();
  for (const api::ResourceInfo* r : kinds_) {
    api::WatchOptions opts;
    opts.send_initial_events = false;
    opts.resource_version = store_.CurrentResourceVersion();
    auto w = store_.Watch(r, opts);
    if (!w.ok()) return false;
    std::unique_ptr<api::Watcher> watcher = std::move(w).value();
    watcher->SetNotify([changes = changes_] { changes->fetch_add(1); });
    watchers_.push_back(std::move(watcher));
  }
  return true;
}

void RbacAuthorizer::Rebuild(uint64_t seen) const {
  // Events only say "something changed": drop them; a watch that ended is opened again (before
  // the lists below, so that no change falls between them).
  bool ended = watchers_.size() != kinds_.size();
  std::vector<api::WatchEvent> events;
  for (auto& w : watchers_) {
    if (!w->Drain(events)) ended = true;
    events.clear();
  }
  if (ended) {
    // Changes from here on are seen by the new watches (which may also notify spuriously as
    // they start: the count is read after them). A policy read while the watches are down is
    // not kept beyond this request.
    seen = WatchAll() ? changes_->load() : 0;
  }

  auto policy = std::make_shared<RbacPolicy::Data>();
  policy->generation = seen;
  auto list = [&](size_t i) -> std::vector<api::ObjectPtr> {
    auto l = store_.List(*kinds_[i], api::ListOptions{});
    if (!l.ok()) return {};
    return std::move(l->items);
  };
  for (const auto& o : list(0)) {
    const auto& r = static_cast<const Role&>(*o);
    policy->roles[NamespacedKey(r.metadata.namespace_, r.metadata.name)] = r.rules;
  }
  for (const auto& o : list(1)) {
    const auto& r = static_cast<const ClusterRole&>(*o);
    policy->cluster_roles[r.metadata.name] = r.rules;
  }
  for (auto& o : list(2)) {
    policy->role_bindings.push_back(std::static_pointer_cast<const RoleBinding>(o));
  }
  for (auto& o : list(3)) {
    policy->cluster_bindings.push_back(std::static_pointer_cast<const ClusterRoleBinding>(o));
  }
  policy_ = std::move(policy);
  builds_.fetch_add(1);
}

RbacPolicy RbacAuthorizer::Snapshot() const {
  const uint64_t seen = changes_->load();
  std::lock_guard<std::mutex> lock(mu_);
  if (!policy_ || policy_->generation != seen) Rebuild(seen);
  return RbacPolicy(policy_);
}

Verdict RbacAuthorizer::Authorize(const Attributes& a) const {
  if (Snapshot().Allows(a)) return Verdict{Decision::kAllow, ""};
  return {};
}

std::vector<PolicyRule> RbacAuthorizer::RulesFor(const authn::UserInfo& user,
                                                 std::string_view namespace_) const {
  return Snapshot().RulesFor(user, namespace_);
}

}  // namespace allot::apiserver::authz

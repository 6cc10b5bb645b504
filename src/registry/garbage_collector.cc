#include "registry/garbage_collector.h"

#include <algorithm>

namespace allot::registry {

namespace {

bool HasFinalizer(const Object& obj, std::string_view f) {
  const auto& fs = obj.metadata.finalizers;
  return std::find(fs.begin(), fs.end(), f) != fs.end();
}

// How an owner reference of `dep` resolves, as Kubernetes' garbage collector reads it: owner
// references carry no namespace, so a namespaced dependent's owner is in its own namespace (or
// cluster-scoped), and a cluster-scoped dependent can have only cluster-scoped owners.
enum class Owner { kPresent, kAbsent, kUnresolvable };

Owner Resolve(const store::Store& store, const ResourceInfo& dep_r, const Object& dep,
              const api::OwnerReference& ref) {
  auto [owner_r, owner] = store.FindByUid(ref.uid);
  if (!dep_r.namespaced) {
    // A cluster-scoped dependent naming a namespaced kind: never collected through it.
    const ResourceInfo* kind =
        owner ? owner_r : api::ResourceRegistry::Default().FindByKind(ref.apiVersion, ref.kind);
    if (kind && kind->namespaced) return Owner::kUnresolvable;
  }
  if (!owner) return Owner::kAbsent;
  if (owner->metadata.name != ref.name) return Owner::kAbsent;
  if (owner_r->namespaced && owner->metadata.namespace_ != dep.metadata.namespace_) {
    return Owner::kAbsent;  // an object of another namespace is no owner of this one
  }
  return Owner::kPresent;
}

// Whether `dep`'s reference `ref` names `owner` (found by that uid) as its owner.
bool OwnedBy(const store::Store& store, const ResourceInfo& dep_r, const Object& dep,
             const api::OwnerReference& ref) {
  return Resolve(store, dep_r, dep, ref) == Owner::kPresent;
}

}  // namespace

Status GarbageCollector::Start() {
  WatchOptions opts;
  opts.resource_version = 0;
  opts.send_initial_events = true;
  opts.max_queue = SIZE_MAX;
  auto w = store_.Watch(nullptr, opts);
  if (!w.ok()) return w.status();
  watcher_ = std::move(w).value();
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void GarbageCollector::Stop() {
  stopping_ = true;
  if (watcher_) watcher_->Stop();
  if (thread_.joinable()) thread_.join();
}

void GarbageCollector::Run() {
  WatchEvent ev;
  while (!stopping_) {
    if (!watcher_->WaitNext(ev, std::chrono::milliseconds(200))) continue;
    if (ev.type == EventType::kError || !ev.resource || !ev.object) continue;
    Handle(ev);
  }
}

void GarbageCollector::Handle(const WatchEvent& ev) {
  const ResourceInfo& r = *ev.resource;
  const ObjectPtr& obj = ev.object;
  if (ev.type == EventType::kDeleted) {
    OwnerRemoved(obj);
    // An owner waiting in foreground deletion may now be unblocked.
    for (const auto& ref : obj->metadata.ownerReferences) {
      auto [owner_r, owner] = store_.FindByUid(ref.uid);
      if (owner && OwnedBy(store_, r, *obj, ref) && owner->metadata.rare->deletionTimestamp &&
          HasFinalizer(*owner, "foregroundDeletion")) {
        AdvanceForeground(*owner_r, owner);
      }
    }
    if (r.resource == "namespaces" && r.group.empty()) DeleteNamespaceContents(obj->metadata.name);
    return;
  }
  if (!obj->metadata.ownerReferences.empty()) CheckOwners(r, obj);
  if (obj->metadata.rare->deletionTimestamp) {
    if (HasFinalizer(*obj, "orphan")) AdvanceOrphan(r, obj);
    if (HasFinalizer(*obj, "foregroundDeletion")) AdvanceForeground(r, obj);
  }
}

// A dependent whose owners no longer exist is deleted; dangling references next to a live
// owner are removed.
void GarbageCollector::CheckOwners(const ResourceInfo& r, const ObjectPtr& obj) {
  std::vector<std::string> dangling;
  bool unresolvable = false;
  for (const auto& ref : obj->metadata.ownerReferences) {
    switch (Resolve(store_, r, *obj, ref)) {
      case Owner::kAbsent:
        dangling.push_back(ref.uid);
        break;
      case Owner::kUnresolvable:
        unresolvable = true;
        break;
      case Owner::kPresent:
        break;
    }
  }
  // An unresolvable reference leaves the object as it is, its dangling references included.
  if (dangling.empty() || unresolvable) return;
  if (dangling.size() == obj->metadata.ownerReferences.size()) {
    if (!obj->metadata.rare->deletionTimestamp) DeleteObject(r, obj, "Background");
  } else {
    RemoveOwnerRefs(r, obj, dangling);
  }
}

void GarbageCollector::OwnerRemoved(const ObjectPtr& owner) {
  for (const auto& [dep_r, dep] : store_.Dependents(owner->metadata.uid)) {
    CheckOwners(*dep_r, dep);
  }
}

void GarbageCollector::AdvanceForeground(const ResourceInfo& r, const ObjectPtr& owner) {
  bool blocked = false;
  for (const auto& [dep_r, dep] : store_.Dependents(owner->metadata.uid)) {
    bool owned = false, blocks = false;
    for (const auto& ref : dep->metadata.ownerReferences) {
      if (ref.uid != owner->metadata.uid || !OwnedBy(store_, *dep_r, *dep, ref)) continue;
      owned = true;
      blocks = blocks || ref.blockOwnerDeletion.value_or(false);
    }
    if (!owned) continue;  // names the uid from another namespace: not a dependent
    if (!dep->metadata.rare->deletionTimestamp) DeleteObject(*dep_r, dep, "Foreground");
    blocked = blocked || blocks;
  }
  if (!blocked) RemoveFinalizer(r, owner, "foregroundDeletion");
}

void GarbageCollector::AdvanceOrphan(const ResourceInfo& r, const ObjectPtr& owner) {
  for (const auto& [dep_r, dep] : store_.Dependents(owner->metadata.uid)) {
    const bool owned =
        std::any_of(dep->metadata.ownerReferences.begin(), dep->metadata.ownerReferences.end(),
                    [&, &dep_r = dep_r, &dep = dep](const api::OwnerReference& ref) {
                      return ref.uid == owner->metadata.uid && OwnedBy(store_, *dep_r, *dep, ref);
                    });
    if (owned) RemoveOwnerRefs(*dep_r, dep, {owner->metadata.uid});
  }
  RemoveFinalizer(r, owner, "orphan");
}

void GarbageCollector::DeleteNamespaceContents(const std::string& ns) {
  for (const ResourceInfo& r : api::ResourceRegistry::Default().All()) {
    if (!r.namespaced) continue;
    ListOptions opts;
    opts.namespace_ = ns;
    auto list = store_.List(r, opts);
    if (!list.ok()) continue;
    for (const auto& obj : list->items) DeleteObject(r, obj, "Background");
  }
}

void GarbageCollector::RemoveFinalizer(const ResourceInfo& r, const ObjectPtr& obj,
                                       const std::string& finalizer) {
  std::string uid = obj->metadata.uid;
  auto res = store_.Update(r, obj->metadata.namespace_, obj->metadata.name,
                           [&](const Object& cur) -> Result<std::unique_ptr<Object>> {
                             if (cur.metadata.uid != uid)
                               return NotFoundError(r.QualifiedResource(), cur.metadata.name);
                             auto next = cur.Clone();
                             auto& fs = next->metadata.finalizers;
                             fs.erase(std::remove(fs.begin(), fs.end(), finalizer), fs.end());
                             return next;
                           });
  (void)res;
}

void GarbageCollector::RemoveOwnerRefs(const ResourceInfo& r, const ObjectPtr& obj,
                                       const std::vector<std::string>& owner_uids) {
  std::string uid = obj->metadata.uid;
  auto res = store_.Update(
      r, obj->metadata.namespace_, obj->metadata.name,
      [&](const Object& cur) -> Result<std::unique_ptr<Object>> {
        if (cur.metadata.uid != uid) return NotFoundError(r.QualifiedResource(), cur.metadata.name);
        auto next = cur.Clone();
        auto& refs = next->metadata.ownerReferences;
        refs.erase(std::remove_if(refs.begin(), refs.end(),
                                  [&](const api::OwnerReference& ref) {
                                    return std::find(owner_uids.begin(), owner_uids.end(),
                                                     ref.uid) != owner_uids.end();
                                  }),
                   refs.end());
        return next;
      });
  (void)res;
}

void GarbageCollector::DeleteObject(const ResourceInfo& r, const ObjectPtr& obj,
                                    const std::string& policy) {
  DeleteOptions opts;
  opts.precondition_uid = obj->metadata.uid;
  opts.propagation_policy = policy;
  auto res = store_.Delete(r, obj->metadata.namespace_, obj->metadata.name, opts);
  if (res.ok()) ++collected_;
}

}  // namespace allot::registry

// The garbage collector: deletes dependents whose owners are gone, and carries out foreground
// and orphan deletion (Kubernetes' ownerReferences semantics).
//
//  - Background (the default): once an owner is removed, every dependent whose owners are all
//    gone is deleted; a dependent that still has a live owner only loses the dangling reference.
//  - Foreground: the owner carries the `foregroundDeletion` finalizer; the collector deletes its
//    dependents and removes the finalizer once no dependent with blockOwnerDeletion=true
//    remains.
//  - Orphan: the owner carries the `orphan` finalizer; the collector removes the owner's
//    reference from every dependent, then the finalizer.
//  - Objects in a deleted namespace are deleted.
//  - An owner reference resolves to the object of its uid only with its name and, for a
//    namespaced owner, in the dependent's own namespace (owner references carry none): a
//    reference to an object elsewhere counts as absent, so no one's object can hold up, or be
//    collected with, another namespace's. A cluster-scoped dependent naming a namespaced owner
//    is never collected through it (unresolvable, as Kubernetes' collector treats it).
//
// It watches every resource through the store::Store (one Watcher, its own thread). Dependents'
// finalizers are honoured because deletes go through the store::Store like any other client's.
#pragma once

#include <atomic>
#include <memory>
#include <thread>

#include "store/store.h"

namespace allot::registry {

using api::DeleteOptions;
using api::EventType;
using api::ListOptions;
using api::Object;
using api::ObjectPtr;
using api::ResourceInfo;
using api::Watcher;
using api::WatchEvent;
using api::WatchOptions;

class GarbageCollector {
 public:
  explicit GarbageCollector(store::Store& store) : store_(store) {}
  ~GarbageCollector() { Stop(); }
  GarbageCollector(const GarbageCollector&) = delete;
  GarbageCollector& operator=(const GarbageCollector&) = delete;

  // Starts watching; objects already orphaned at start are collected too.
  Status Start();
  void Stop();

  // Number of objects this collector deleted (for tests and metrics).
  uint64_t collected() const { return collected_.load(); }

 private:
  void Run();
  void Handle(const WatchEvent& ev);
  void CheckOwners(const ResourceInfo& r, const ObjectPtr& obj);
  void AdvanceForeground(const ResourceInfo& r, const ObjectPtr& owner);
  void AdvanceOrphan(const ResourceInfo& r, const ObjectPtr& owner);
  void OwnerRemoved(const ObjectPtr& owner);
  void DeleteNamespaceContents(const std::string& ns);
  void RemoveFinalizer(const ResourceInfo& r, const ObjectPtr& obj, const std::string& finalizer);
  void RemoveOwnerRefs(const ResourceInfo& r, const ObjectPtr& obj,
                       const std::vector<std::string>& owner_uids);
  void DeleteObject(const ResourceInfo& r, const ObjectPtr& obj, const std::string& policy);

  store::Store& store_;
  std::unique_ptr<Watcher> watcher_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> collected_{0};
};

}  // namespace allot::registry

// The in-process Client: straight to a store::Store, no JSON (docs/architecture.md §2 rules 1 and
// 3).
//
//   store::Store store(store::NewMemoryBackend(), clock);
//   ALLOT_RETURN_IF_ERROR(store.Open());
//   client::InProcessClient client(store, clock);
//   auto pod = client.Get(pods, "default", "p1");
//
// Semantics are the API server's, because both sit on the same store calls:
//   - Create / Delete: Store::CreateAsync / DeleteAsync.
//   - Update: a store update whose UpdateFn returns the given object; the store compares its
//     metadata.resourceVersion with the stored one (409 Conflict on a mismatch, no check when
//     empty). UpdateStatus does the same on Subresource::kStatus.
//   - Patch: the stored object is encoded to JSON, patched with api::ApplyPatch and decoded
//     (unknown fields dropped), as the server's PATCH handler does; when the object changed
//     between the read and the write, the patch is applied again to the newer object.
//     An apply patch (PatchKind::kApply) of a missing object creates it.
//   - Bind: registry::BindPodAsync (registry/pod_binding.h), the server's binding rules.
// The *Async callbacks run on the store's committer thread: they must not block, and must not
// call the synchronous Client methods that write (those wait for the committer).
//
// Thread-safe. The store and clock must outlive the client.
#pragma once

#include "client/client.h"
#include "common/time.h"
#include "store/store.h"

namespace allot::client {

class InProcessClient final : public Client {
 public:
  InProcessClient(store::Store& store, Clock& clock) : store_(store), clock_(clock) {}

  Result<ObjectPtr> Get(const ResourceInfo& r, std::string_view ns, std::string_view name) override;
  Result<api::ListResult> List(const ResourceInfo& r, const api::ListOptions& opts) override;
  Result<std::unique_ptr<api::Watcher>> Watch(const ResourceInfo& r,
                                              const api::WatchOptions& opts) override;

  void CreateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                   Callback<ObjectPtr> done) override;
  void UpdateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                   Callback<ObjectPtr> done) override;
  void UpdateStatusAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                         Callback<ObjectPtr> done) override;
  void PatchAsync(const ResourceInfo& r, std::string ns, std::string name, PatchKind kind,
                  std::string patch, bool status, Callback<ObjectPtr> done) override;
  void DeleteAsync(const ResourceInfo& r, std::string ns, std::string name, api::DeleteOptions opts,
                   Callback<api::DeleteResult> done) override;
  void BindAsync(std::string ns, std::string pod, std::string uid, std::string node,
                 Annotations annotations, Callback<bool> done) override;

  store::Store& store() { return store_; }

 private:
  void Put(const ResourceInfo& r, std::unique_ptr<Object> obj, store::Subresource sub,
           Callback<ObjectPtr> done);
  void ApplyCreate(const ResourceInfo& r, const std::string& ns, const std::string& name,
                   const std::string& body, Callback<ObjectPtr> done);

  store::Store& store_;
  Clock& clock_;
};

}  // namespace allot::client

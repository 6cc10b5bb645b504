// The one client interface every component (scheduler, controllers, drivers, simulated nodes)
// reads and writes through. Two implementations:
//   - InProcessClient (client/inprocess/inprocess_client.h): straight to a store::Store, no JSON.
//   - HttpClient (client/http_client.h): Kubernetes REST over HTTP to any compatible server.
// Components never reach around it (docs/architecture.md §2 rule 1).
//
// Errors are Kubernetes Statuses (404 NotFound, 409 Conflict, 422 Invalid, ...) whichever
// implementation is used. All methods are thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/machinery/object.h"
#include "api/machinery/options.h"
#include "api/machinery/resources.h"
#include "api/machinery/watch.h"
#include "common/status.h"

namespace allot::api {
enum class PatchType;
}  // namespace allot::api

namespace allot::client {

using api::Object;
using api::ObjectPtr;
using api::ResourceInfo;

// Patch content types (mirrors api::PatchType; kept separate so this header stays light).
enum class PatchKind { kJson, kMerge, kStrategicMerge, kApply };
// The api::PatchType (api/patch/patch.h) of a PatchKind.
api::PatchType ToPatchType(PatchKind kind);

template <class T>
using Callback = std::function<void(Result<T>)>;
// Annotations to merge into an object (a Binding's), as key / value pairs.
using Annotations = std::vector<std::pair<std::string, std::string>>;

class Client {
 public:
  virtual ~Client() = default;

  virtual Result<ObjectPtr> Get(const ResourceInfo& r, std::string_view ns,
                                std::string_view name) = 0;
  virtual Result<api::ListResult> List(const ResourceInfo& r,
                                         const api::ListOptions& opts) = 0;
  // A watch; over HTTP the returned Watcher reads the chunked stream. A 410 arrives as an
  // ERROR event (as from the store).
  virtual Result<std::unique_ptr<api::Watcher>> Watch(const ResourceInfo& r,
                                                        const api::WatchOptions& opts) = 0;

  // Writes, asynchronous: `done` runs once the server answered (on an internal thread; do not
  // block in it). Update uses obj.metadata.resourceVersion for compare-and-swap when set.
  virtual void CreateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                           Callback<ObjectPtr> done) = 0;
  virtual void UpdateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                           Callback<ObjectPtr> done) = 0;
  // PUT .../status: only status changes.
  virtual void UpdateStatusAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                                 Callback<ObjectPtr> done) = 0;
  virtual void PatchAsync(const ResourceInfo& r, std::string ns, std::string name,
                          PatchKind kind, std::string patch, bool status,
                          Callback<ObjectPtr> done) = 0;
  virtual void DeleteAsync(const ResourceInfo& r, std::string ns, std::string name,
                           api::DeleteOptions opts, Callback<api::DeleteResult> done) = 0;
  // POST pods/<name>/binding: sets spec.nodeName once (409 if already bound) and merges
  // `annotations` into the pod's, in the same write.
  virtual void BindAsync(std::string ns, std::string pod, std::string uid, std::string node,
                         Annotations annotations, Callback<bool> done) = 0;

  // Synchronous conveniences over the async calls.
  Result<ObjectPtr> Create(const ResourceInfo& r, std::unique_ptr<Object> obj);
  Result<ObjectPtr> Update(const ResourceInfo& r, std::unique_ptr<Object> obj);
  Result<ObjectPtr> UpdateStatus(const ResourceInfo& r, std::unique_ptr<Object> obj);
  Result<ObjectPtr> Patch(const ResourceInfo& r, std::string ns, std::string name,
                          PatchKind kind, std::string patch, bool status = false);
  Result<api::DeleteResult> Delete(const ResourceInfo& r, std::string ns, std::string name,
                                     api::DeleteOptions opts = {});
  Status Bind(std::string ns, std::string pod, std::string uid, std::string node,
              Annotations annotations = {});
};

}  // namespace allot::client

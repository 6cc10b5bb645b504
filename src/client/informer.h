// Informers: list + watch one resource into a local cache and call handlers on changes.
//
//   Informer pods(client, pods_resource, {});
//   pods.AddHandler({.on_add = ..., .on_update = ..., .on_delete = ...});
//   pods.AddIndex("node", [](const Object& o) { return std::vector<std::string>{NodeOf(o)}; });
//   pods.Start();
//   pods.WaitForSync(std::chrono::seconds(10));
//
// The informer lists (in pages of 500), then watches from the list's resourceVersion, resumes a
// broken or ended watch from the last resourceVersion it saw (bookmarks and the watch's
// progress count), and relists when the server answers 410 Expired (handlers then see the
// difference as adds, updates and deletes; an object whose resourceVersion did not change is
// not reported). Failed lists and watches are retried with backoff (100 ms doubling to 10 s).
// Handlers run on the informer's own thread, one event at a time, in resourceVersion order,
// after the cache reflects the event; they must not block for long, and must not call Stop()
// or destroy the informer. The cache (Get / List / ByIndex) is safe to read from any thread.
//
// Sharing: an informer may be shared by several components (client/informer_factory.h), so
// AddHandler and AddIndex also work after Start(): a late handler first receives the current
// cache as adds (on the informer thread), a late index is built from the cache at once.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/client.h"

namespace allot::client {

struct EventHandler {
  std::function<void(const ObjectPtr& obj)> on_add;
  std::function<void(const ObjectPtr& old_obj, const ObjectPtr& new_obj)> on_update;
  std::function<void(const ObjectPtr& last)> on_delete;
};

struct InformerOptions {
  std::string namespace_;      // empty: all
  std::string label_selector;  // "?labelSelector=" syntax
  std::string field_selector;  // "?fieldSelector=" syntax
};

class Informer {
 public:
  Informer(Client& client, const ResourceInfo& resource, InformerOptions options = {});
  ~Informer();  // Stop()s
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Any time (see "Sharing" above). Adding an index under an existing name replaces it.
  void AddHandler(EventHandler handler);
  // The values an object is indexed under (e.g. {spec.nodeName}); must be a pure function.
  using IndexFn = std::function<std::vector<std::string>(const Object&)>;
  void AddIndex(const std::string& name, IndexFn fn);

  // Starts the informer's thread (returns at once; see WaitForSync). Idempotent. Errors: a
  // malformed label or field selector (400).
  Status Start();
  // Ends the watch and joins the thread. Idempotent.
  void Stop();
  // True once the initial list has been delivered to every handler and the watch that follows
  // it is open: from then on no change can be in transit between the list and the watch (a
  // process that drives time by waiting for quiet relies on that, sim/clock.h).
  bool WaitForSync(std::chrono::milliseconds timeout);
  bool HasSynced() const;
  const ResourceInfo& resource() const;
  // Why the informer is not (yet) in sync: the error of its last failed list or of the watch
  // after it ("forbidden", "not found", unreachable), or OK.
  Status LastListError() const;

  ObjectPtr Get(std::string_view ns, std::string_view name) const;
  std::vector<ObjectPtr> List() const;
  std::vector<ObjectPtr> ByIndex(const std::string& index, const std::string& value) const;
  // The resourceVersion the cache is known to be current with (the last event applied, list or
  // watch progress); the next watch resumes from it.
  uint64_t LastResourceVersion() const;
  // Waits until LastResourceVersion() >= rv (e.g. the resourceVersion of one's own write, so
  // the cache reflects it); false after `timeout` or once stopped. Progress past writes to
  // other resources arrives with the next event or bookmark.
  bool WaitForResourceVersion(uint64_t rv, std::chrono::milliseconds timeout) const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace allot::client

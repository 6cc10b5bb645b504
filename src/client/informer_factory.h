// Shared informers: one Informer per (resource, namespace, label selector, field selector) for
// every component of a process, so the scheduler, controllers and simulated nodes that all
// watch pods share one list + watch and one cache.
//
//   InformerFactory factory(client);
//   Informer& pods = factory.For(pods_resource);
//   pods.AddHandler(...);
//   ALLOT_RETURN_IF_ERROR(factory.StartAll());
//   if (!factory.WaitForCacheSync(std::chrono::seconds(30))) ...
//
// Thread-safe. Informers live as long as the factory; the client must outlive it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "client/informer.h"

namespace allot::client {

class InformerFactory {
 public:
  explicit InformerFactory(Client& client) : client_(client) {}
  ~InformerFactory();  // StopAll()
  InformerFactory(const InformerFactory&) = delete;
  InformerFactory& operator=(const InformerFactory&) = delete;

  // The shared informer for `resource` with `options`, created (not started) on first use.
  Informer& For(const ResourceInfo& resource, const InformerOptions& options = {});

  // Starts every informer not started yet (informers created later need another call).
  // Errors: the first informer that failed to start (a malformed selector).
  Status StartAll();
  // True once every started informer has synced; false after `timeout`.
  bool WaitForCacheSync(std::chrono::milliseconds timeout);
  // Each started informer not in sync, with its last list error: "resourceclaims.resource.k8s.io
  // (Forbidden: ...)"; "" when all are.
  std::string Unsynced() const;
  void StopAll();

 private:
  using Key = std::tuple<const ResourceInfo*, std::string, std::string, std::string>;

  Client& client_;
  mutable std::mutex mu_;
  std::map<Key, std::unique_ptr<Informer>> informers_;  // guarded by mu_
  std::vector<Informer*> started_;                      // guarded by mu_
};

}  // namespace allot::client

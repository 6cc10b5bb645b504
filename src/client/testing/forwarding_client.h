// ForwardingClient: a Client that passes every call to another one (tests only). Test clients
// that record calls, inject faults or race writes derive from it and override only the calls
// they change, so a new Client method needs one forwarder here rather than one per decorator.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "client/client.h"

namespace allot::client {

class ForwardingClient : public Client {
 public:
  // `inner` must outlive this client.
  explicit ForwardingClient(Client& inner) : inner_(inner) {}

  Result<ObjectPtr> Get(const ResourceInfo& r, std::string_view ns,
                        std::string_view name) override {
    return inner_.Get(r, ns, name);
  }
  Result<api::ListResult> List(const ResourceInfo& r, const api::ListOptions& opts) override {
    return inner_.List(r, opts);
  }
  Result<std::unique_ptr<api::Watcher>> Watch(const ResourceInfo& r,
                                              const api::WatchOptions& opts) override {
    return inner_.Watch(r, opts);
  }
  void CreateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                   Callback<ObjectPtr> done) override {
    inner_.CreateAsync(r, std::move(obj), std::move(done));
  }
  void UpdateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                   Callback<ObjectPtr> done) override {
    inner_.UpdateAsync(r, std::move(obj), std::move(done));
  }
  void UpdateStatusAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                         Callback<ObjectPtr> done) override {
    inner_.UpdateStatusAsync(r, std::move(obj), std::move(done));
  }
  void PatchAsync(const ResourceInfo& r, std::string ns, std::string name, PatchKind kind,
                  std::string patch, bool status, Callback<ObjectPtr> done) override {
    inner_.PatchAsync(r, std::move(ns), std::move(name), kind, std::move(patch), status,
                      std::move(done));
  }
  void DeleteAsync(const ResourceInfo& r, std::string ns, std::string name, api::DeleteOptions opts,
                   Callback<api::DeleteResult> done) override {
    inner_.DeleteAsync(r, std::move(ns), std::move(name), std::move(opts), std::move(done));
  }
  void BindAsync(std::string ns, std::string pod, std::string uid, std::string node,
                 Annotations annotations, Callback<bool> done) override {
    inner_.BindAsync(std::move(ns), std::move(pod), std::move(uid), std::move(node),
                     std::move(annotations), std::move(done));
  }

 protected:
  Client& inner() { return inner_; }

 private:
  Client& inner_;
};

}  // namespace allot::client

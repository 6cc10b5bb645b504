// A fake client::Client for scheduler tests (header-only; tests only): records bindings,
// status patches and created Events; Get/List/Watch are not supported. Binding outcomes are
// decided by an optional hook; callbacks run on the caller's thread unless `defer_binds` is
// set, in which case they wait for CompleteBinds().
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "client/client.h"

namespace allot::scheduler::testing {

class FakeClient final : public client::Client {
 public:
  struct Binding {
    std::string ns, pod, uid, node;
  };
  struct Patch {
    std::string ns, name, body;
    bool status;
  };

  // Returns an error to fail a binding.
  std::function<allot::Status(const Binding&)> bind_hook;
  bool defer_binds = false;

  Result<api::ObjectPtr> Get(const api::ResourceInfo&, std::string_view,
                             std::string_view) override {
    return allot::InternalError("fake client: Get not supported");
  }
  Result<api::ListResult> List(const api::ResourceInfo&, const api::ListOptions&) override {
    return allot::InternalError("fake client: List not supported");
  }
  Result<std::unique_ptr<api::Watcher>> Watch(const api::ResourceInfo&,
                                                const api::WatchOptions&) override {
    return allot::InternalError("fake client: Watch not supported");
  }
  void CreateAsync(const api::ResourceInfo&, std::unique_ptr<api::Object> obj,
                   client::Callback<api::ObjectPtr> done) override {
    std::shared_ptr<const api::Object> shared(std::move(obj));
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto* ev = api::As<api::Event>(*shared)) events_.push_back(*ev);
    }
    done(shared);
  }
  void UpdateAsync(const api::ResourceInfo&, std::unique_ptr<api::Object>,
                   client::Callback<api::ObjectPtr> done) override {
    done(allot::InternalError("fake client: Update not supported"));
  }
  void UpdateStatusAsync(const api::ResourceInfo&, std::unique_ptr<api::Object>,
                         client::Callback<api::ObjectPtr> done) override {
    done(allot::InternalError("fake client: UpdateStatus not supported"));
  }
  void PatchAsync(const api::ResourceInfo&, std::string ns, std::string name, client::PatchKind,
                  std::string patch, bool status, client::Callback<api::ObjectPtr> done) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      patches_.push_back({ns, name, patch, status});
    }
    done(allot::NotFoundError("pods", name));
  }
  void DeleteAsync(const api::ResourceInfo&, std::string, std::string, api::DeleteOptions,
                   client::Callback<api::DeleteResult> done) override {
    done(allot::InternalError("fake client: Delete not supported"));
  }
  void BindAsync(std::string ns, std::string pod, std::string uid, std::string node,
                 client::Annotations, client::Callback<bool> done) override {
    Binding b{ns, pod, uid, node};
    std::unique_lock<std::mutex> lock(mu_);
    if (defer_binds) {
      deferred_.emplace_back(b, std::move(done));
      return;
    }
    lock.unlock();
    Finish(b, done);
  }

  // Completes deferred bindings (on this thread).
  void CompleteBinds() {
    std::vector<std::pair<Binding, client::Callback<bool>>> todo;
    {
      std::lock_guard<std::mutex> lock(mu_);
      todo.swap(deferred_);
    }
    for (auto& [b, done] : todo) Finish(b, done);
  }

  std::vector<Binding> bindings() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bindings_;
  }
  std::vector<Patch> patches() const {
    std::lock_guard<std::mutex> lock(mu_);
    return patches_;
  }
  std::vector<api::Event> events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  void Finish(const Binding& b, const client::Callback<bool>& done) {
    allot::Status st = bind_hook ? bind_hook(b) : allot::Status::Ok();
    if (st.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      bindings_.push_back(b);
    }
    if (st.ok()) {
      done(true);
    } else {
      done(st);
    }
  }

  mutable std::mutex mu_;
  std::vector<Binding> bindings_;
  std::vector<Patch> patches_;
  std::vector<api::Event> events_;
  std::vector<std::pair<Binding, client::Callback<bool>>> deferred_;
};

}  // namespace allot::scheduler::testing

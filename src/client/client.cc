#include "client/client.h"

#include <future>

namespace allot::client {

namespace {
template <class T, class Start>
Result<T> Wait(Start start) {
  std::promise<Result<T>> p;
  auto f = p.get_future();
  start([&p](Result<T> r) { p.set_value(std::move(r)); });
  return f.get();
}
}  // namespace

Result<ObjectPtr> Client::Create(const ResourceInfo& r, std::unique_ptr<Object> obj) {
  return Wait<ObjectPtr>([&](auto done) { CreateAsync(r, std::move(obj), std::move(done)); });
}

Result<ObjectPtr> Client::Update(const ResourceInfo& r, std::unique_ptr<Object> obj) {
  return Wait<ObjectPtr>([&](auto done) { UpdateAsync(r, std::move(obj), std::move(done)); });
}

Result<ObjectPtr> Client::UpdateStatus(const ResourceInfo& r, std::unique_ptr<Object> obj) {
  return Wait<ObjectPtr>(
      [&](auto done) { UpdateStatusAsync(r, std::move(obj), std::move(done)); });
}

Result<ObjectPtr> Client::Patch(const ResourceInfo& r, std::string ns, std::string name,
                                PatchKind kind, std::string patch, bool status) {
  return Wait<ObjectPtr>([&](auto done) {
    PatchAsync(r, std::move(ns), std::move(name), kind, std::move(patch), status, std::move(done));
  });
}

Result<api::DeleteResult> Client::Delete(const ResourceInfo& r, std::string ns,
                                           std::string name, api::DeleteOptions opts) {
  return Wait<api::DeleteResult>([&](auto done) {
    DeleteAsync(r, std::move(ns), std::move(name), std::move(opts), std::move(done));
  });
}

Status Client::Bind(std::string ns, std::string pod, std::string uid, std::string node) {
  auto r = Wait<bool>([&](auto done) {
    BindAsync(std::move(ns), std::move(pod), std::move(uid), std::move(node), std::move(done));
  });
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace allot::client

#include "client/client.h"

#include "api/patch/patch.h"
#include "common/await.h"

namespace allot::client {

api::PatchType ToPatchType(PatchKind kind) {
  switch (kind) {
    case PatchKind::kJson:
      return api::PatchType::kJsonPatch;
    case PatchKind::kMerge:
      return api::PatchType::kMergePatch;
    case PatchKind::kStrategicMerge:
      return api::PatchType::kStrategicMergePatch;
    case PatchKind::kApply:
      return api::PatchType::kApplyPatch;
  }
  return api::PatchType::kMergePatch;
}

Result<ObjectPtr> Client::Create(const ResourceInfo& r, std::unique_ptr<Object> obj) {
  return Await<ObjectPtr>([&](auto done) { CreateAsync(r, std::move(obj), std::move(done)); });
}

Result<ObjectPtr> Client::Update(const ResourceInfo& r, std::unique_ptr<Object> obj) {
  return Await<ObjectPtr>([&](auto done) { UpdateAsync(r, std::move(obj), std::move(done)); });
}

Result<ObjectPtr> Client::UpdateStatus(const ResourceInfo& r, std::unique_ptr<Object> obj) {
  return Await<ObjectPtr>(
      [&](auto done) { UpdateStatusAsync(r, std::move(obj), std::move(done)); });
}

Result<ObjectPtr> Client::Patch(const ResourceInfo& r, std::string ns, std::string name,
                                PatchKind kind, std::string patch, bool status) {
  return Await<ObjectPtr>([&](auto done) {
    PatchAsync(r, std::move(ns), std::move(name), kind, std::move(patch), status, std::move(done));
  });
}

Result<api::DeleteResult> Client::Delete(const ResourceInfo& r, std::string ns,
                                           std::string name, api::DeleteOptions opts) {
  return Await<api::DeleteResult>([&](auto done) {
    DeleteAsync(r, std::move(ns), std::move(name), std::move(opts), std::move(done));
  });
}

Status Client::Bind(std::string ns, std::string pod, std::string uid, std::string node,
                    Annotations annotations) {
  auto r = Await<bool>([&](auto done) {
    BindAsync(std::move(ns), std::move(pod), std::move(uid), std::move(node),
              std::move(annotations), std::move(done));
  });
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace allot::client

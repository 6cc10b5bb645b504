#include "registry/pod_binding.h"

#include <memory>

#include "api/core/pod_state.h"
#include "api/core/types.h"
#include "api/machinery/validation.h"

namespace allot::registry {

namespace {

Status BindingConflict(const std::string& pod, const std::string& why) {
  return ConflictError("pods/binding", pod, why);
}

// The checks BindingREST makes, in its order (preconditions first, as storage checks them).
Status CheckBindable(const api::Pod& pod, const PodBinding& b) {
  const api::ObjectMeta& meta = pod.metadata;
  if (!b.uid.empty() && b.uid != meta.uid) {
    return ConflictError(
        "pods", meta.name,
        "Precondition failed: UID in precondition: " + b.uid + ", UID in object meta: " + meta.uid);
  }
  if (!b.resource_version.empty() && b.resource_version != meta.resourceVersion) {
    return ConflictError(
        "pods", meta.name,
        "Precondition failed: ResourceVersion in precondition: " + b.resource_version +
            ", ResourceVersion in object meta: " + meta.resourceVersion);
  }
  if (meta.rare->deletionTimestamp) {
    return BindingConflict(meta.name,
                           "pod " + meta.name + " is being deleted, cannot be assigned to a host");
  }
  if (!pod.spec.nodeName.empty()) {
    return BindingConflict(meta.name, "pod " + meta.name + " is already assigned to node \"" +
                                          pod.spec.nodeName + "\"");
  }
  if (!pod.spec.schedulingGates.empty()) {
    return BindingConflict(meta.name, "pod " + meta.name + " has non-empty .spec.schedulingGates");
  }
  return Status::Ok();
}

void SetScheduled(api::PodStatus& status, Time now) {
  api::UpdatePodCondition(status, {.type = "PodScheduled", .status = "True"}, now);
}

}  // namespace

Status ValidatePodBinding(const PodBinding& binding) {
  if (!binding.node.empty()) return Status::Ok();
  api::FieldErrors errs;
  errs.Required(api::Path("target").Child("name"));
  return errs.ToStatus("Binding", "", binding.name);
}

store::UpdateFn BindPodFn(PodBinding binding, Time now) {
  auto b = std::make_shared<const PodBinding>(std::move(binding));
  return [b, now](const Object& current) -> Result<std::unique_ptr<Object>> {
    const api::Pod* pod = api::As<api::Pod>(current);
    if (!pod) return InternalError("pods/binding: the stored object is not a Pod");
    ALLOT_RETURN_IF_ERROR(CheckBindable(*pod, *b));
    auto bound = std::make_unique<api::Pod>(*pod);
    bound->spec.nodeName = b->node;
    for (const auto& [key, value] : b->annotations) bound->metadata.annotations[key] = value;
    SetScheduled(bound->status, now);
    return std::unique_ptr<Object>(std::move(bound));
  };
}

void BindPodAsync(store::Store& store, PodBinding binding, Clock& clock, bool dry_run,
                  std::function<void(Result<ObjectPtr>)> done) {
  Status valid = ValidatePodBinding(binding);
  if (!valid.ok()) return done(std::move(valid));
  static const ResourceInfo& pods = api::ResourceFor<api::Pod>();
  store::UpdateOptions opts;
  opts.subresource = store::Subresource::kBinding;
  opts.dry_run = dry_run;
  std::string ns = binding.namespace_;
  std::string name = binding.name;
  store.UpdateAsync(pods, std::move(ns), std::move(name),
                    BindPodFn(std::move(binding), clock.Now()), std::move(opts), std::move(done));
}

}  // namespace allot::registry

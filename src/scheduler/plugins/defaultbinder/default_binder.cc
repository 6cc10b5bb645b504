#include "scheduler/plugins/defaultbinder/default_binder.h"

#include "client/client.h"

namespace allot::scheduler {

void DefaultBinder::Bind(CycleState& state, const PodInfo& pod, const std::string& node,
                         BindCallback done) {
  client::Client* c = handle_.client();
  if (!c) {
    done(Status::Error("DefaultBinder has no API client"));
    return;
  }
  client::Annotations annotations;
  if (const BindingAnnotations* a = state.Read(kBindingAnnotationsKey)) annotations = a->items;
  c->BindAsync(pod.namespace_(), pod.name(), pod.uid(), node, std::move(annotations),
               [done = std::move(done)](Result<bool> r) {
                 done(r.ok() ? Status::Success() : Status::FromError(r.status()));
               });
}

}  // namespace allot::scheduler

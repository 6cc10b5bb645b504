#include "scheduler/plugins/defaultbinder/default_binder.h"

#include "client/client.h"

namespace allot::scheduler {

void DefaultBinder::Bind(CycleState&, const PodInfo& pod, const std::string& node,
                         BindCallback done) {
  client::Client* c = handle_.client();
  if (!c) {
    done(Status::Error("DefaultBinder has no API client"));
    return;
  }
  c->BindAsync(pod.namespace_(), pod.name(), pod.uid(), node,
               [done = std::move(done)](Result<bool> r) {
                 done(r.ok() ? Status::Success() : Status::FromError(r.status()));
               });
}

}  // namespace allot::scheduler

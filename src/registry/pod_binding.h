// Pod binding (POST pods/<name>/binding): the one place its semantics live, shared by the API
// server's binding handler and the in-process client.
//
// Kubernetes' BindingREST (pkg/registry/core/pod/storage) in one store write:
//   - the pod must not be being deleted:  409 `pod <n> is being deleted, cannot be assigned to
//     a host`;
//   - spec.nodeName must be empty:         409 `pod <n> is already assigned to node "<node>"`;
//   - spec.schedulingGates must be empty:  409 `pod <n> has non-empty .spec.schedulingGates`;
//   (these three are Conflicts on "pods/binding", as the apiserver wraps them)
//   - optional uid / resourceVersion preconditions: 409 Conflict on "pods" with the storage
//     layer's "Precondition failed: ..." text;
//   - then spec.nodeName = node, the binding's annotations are merged into the pod's, and the
//     PodScheduled condition becomes True (podutil.UpdatePodCondition: replaced in place, its
//     lastTransitionTime kept when it was already True).
// The write uses store::Subresource::kBinding, so the pod update validation that forbids
// changing spec.nodeName does not run, and metadata.generation does not change.
//
// Thread-safe: pure functions over their arguments.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "store/store.h"

namespace allot::registry {

using api::Object;
using api::ObjectPtr;
using api::ResourceInfo;

struct PodBinding {
  std::string namespace_;
  std::string name;  // the pod
  std::string node;  // target.name; required
  // Preconditions, checked when non-empty (Binding.metadata.uid / .resourceVersion).
  std::string uid;
  std::string resource_version;
  // Binding.metadata.annotations, merged into the pod's annotations.
  std::vector<std::pair<std::string, std::string>> annotations;
};

// The Binding itself: target.name is required (422 Invalid on kind Binding).
Status ValidatePodBinding(const PodBinding& binding);

// The store::UpdateFn of a binding: checks the rules above against the current pod and returns the
// bound pod. `now` is the PodScheduled condition's lastTransitionTime. Errors as above; a
// current object that is not a Pod is a 500.
store::UpdateFn BindPodFn(PodBinding binding, Time now);

// Validates the binding, then binds through `store` (one kBinding write of the pods resource).
// `done` receives the bound pod, or 404 when the pod does not exist, or one of the errors
// above; a binding that does not validate completes at once, on the calling thread. Runs on the
// store's committer thread (see store::Store).
void BindPodAsync(store::Store& store, PodBinding binding, Clock& clock, bool dry_run,
                  std::function<void(Result<ObjectPtr>)> done);

}  // namespace allot::registry

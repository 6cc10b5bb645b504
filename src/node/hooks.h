// Extension points of the simulated kubelet, for the behaviour that depends on other
// subsystems (DRA today; device plugins or volumes later).
//
// Both are called on the simulator's tick thread, never concurrently with each other for the
// same simulator, and must not block for long: a slow hook stalls every simulated node of the
// process. They receive the pod as last observed (immutable) and the name of its node.
#pragma once

#include <string>
#include <string_view>

#include "api/core/types.h"
#include "common/status.h"

namespace allot::node {

// Prepares a pod's resource claims on its node before the pod starts (what a DRA kubelet plugin
// does in NodePrepareResources) and releases them when the pod stops or is deleted.
class ClaimPreparer {
 public:
  virtual ~ClaimPreparer() = default;
  // Called once before the pod is marked Running. An error keeps the pod Pending; the simulator
  // retries with backoff (1 s doubling to 30 s) and on every change of the pod.
  virtual Status Prepare(const api::Pod& pod, std::string_view node) = 0;
  // Called once after a successful Prepare, when the pod finishes, is deleted or disappears.
  // Best effort: there is nobody to report an error to.
  virtual void Unprepare(const api::Pod& pod, std::string_view node) = 0;
};

// The default: nothing to prepare.
class NoopClaimPreparer final : public ClaimPreparer {
 public:
  Status Prepare(const api::Pod&, std::string_view) override { return Status::Ok(); }
  void Unprepare(const api::Pod&, std::string_view) override {}
};

// "May this pod start on this node now?" The DRA rule (docs/architecture.md §5.3, KEP-3063) refuses pods
// whose claims are not yet allocated and reserved for them. Rules are evaluated in the order
// they were added; the first refusal wins.
class PodStartRule {
 public:
  virtual ~PodStartRule() = default;
  // Empty when the pod may start; otherwise why not (a short sentence, kept in the simulator's
  // stats and logs). A refused pod stays Pending and is retried with backoff and on every
  // change of the pod.
  virtual std::string WhyNotStart(const api::Pod& pod, std::string_view node) = 0;
};

}  // namespace allot::node

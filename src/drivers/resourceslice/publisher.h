// Publishing a driver's ResourceSlices: what one pool's slice should become, given what the API
// server holds. Both drivers publish through it — the node-local driver one pool per node
// (drivers/nodelocal/driver.h), the fabric driver one pool per model (drivers/fabric/driver.h) —
// and each executes the writes its own way (many nodes in a write pipeline; a few pools
// synchronously).
//
// The rules, as Kubernetes' resourceslice publishing has them:
//  - a pool is published as exactly one slice (resourceSliceCount 1); every other slice found
//    where it belongs is stale and deleted (with its uid as precondition);
//  - the pool's generation goes up whenever the published devices change, and a slice created
//    anew gets a generation above every slice the pool had (those seen now and those this
//    publisher wrote before), so consumers never mix an old view with the new one;
//  - a slice that already says what it should is not written.
//
// Pure: no I/O, no state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/resource/types.h"

namespace allot::drivers::resourceslice {

// One write of a publishing pass.
struct SliceWrite {
  enum class Kind { kCreate, kUpdate, kDelete };
  Kind kind = Kind::kCreate;
  std::unique_ptr<api::ResourceSlice> slice;  // kCreate; kUpdate (with the resourceVersion read)
  std::string name, uid;                      // kDelete: precondition uid
};

struct PoolPlan {
  std::vector<SliceWrite> writes;  // the deletes of stale slices first, then a create or update
  int64_t generation = 0;          // the pool's generation once the writes are done
  // The highest generation the pool has had, stale slices included: what the publisher should
  // pass as remembered_generation next time.
  int64_t remember = 0;
};

struct PoolOptions {
  // Take over a slice of the pool that has another name (say, one an earlier process published
  // with generateName) rather than replacing it.
  bool adopt = false;
  // The highest generation this publisher gave the pool before (0: none), so that a slice
  // deleted behind its back is re-created newer than it was.
  int64_t remembered_generation = 0;
  // Adjusts the metadata of the slice to write (owner references); null for none.
  std::function<void(api::ObjectMeta&)> metadata;
};

// The writes that make `existing` — the driver's slices found where `desired` belongs (its pool,
// or its node) — become exactly `desired`. Ours is the slice with desired's name, pool and
// per-device node selection (or, with `adopt`, any slice of the pool); its spec becomes
// desired's, with the generation rules above (desired's own pool.generation is ignored).
PoolPlan PlanPool(const std::vector<const api::ResourceSlice*>& existing,
                  const api::ResourceSlice& desired, const PoolOptions& options = {});

}  // namespace allot::drivers::resourceslice

// A pod's resource requests as Kubernetes computes them (k8s.io/component-helpers/resource
// PodRequests), for everyone who charges pods against capacity: the scheduler, the reservation
// controller.
//  - regular containers are summed;
//  - init containers run one at a time, so the pod needs the max over them, where each init
//    container also needs every restartable init container (sidecar) started before it;
//  - sidecars keep running, so they are added to the regular containers' sum;
//  - pod-level resources (spec.resources.requests cpu/memory/hugepages-*), when set, replace the
//    container aggregate for those resources;
//  - spec.overhead is added at the end.
// With `non_missing`, a container that requests no cpu or no memory counts as 100m cpu and
// 200Mi memory (schedutil.DefaultMilliCPURequest / DefaultMemoryRequest).
#pragma once

#include <cstdint>

#include "api/core/types.h"

namespace allot::api {

inline constexpr int64_t kDefaultMilliCpuRequest = 100;                // 0.1 core
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;  // 200 MiB

ResourceList PodRequests(const Pod& pod, bool non_missing = false);

// A restartable init container (restartPolicy Always): a sidecar.
bool IsRestartableInitContainer(const Container& c);

}  // namespace allot::api

// The DRA features a standalone component (allot scheduler, allot controllers) can use against
// the API server it was pointed at, which may be a real Kubernetes cluster rather than Allot's.
#pragma once

#include <string_view>

#include "client/client.h"
#include "dra/features.h"

namespace allot::cluster {

// `wanted` less what the server cannot give this identity: DRAControlPlaneController (KEP-3063)
// needs resource.k8s.io/v1alpha3 PodSchedulingContexts, which Kubernetes no longer serves since
// 1.32 and which Kubernetes' own system:kube-scheduler may not list. Asked once, with a list of
// at most one object; when the answer is 404 or 403 the feature is turned off and the reason
// logged once as `component`'s, so that informers never wait on a resource they cannot have.
// Other errors (the server unreachable) leave `wanted` as it is: the informers will retry.
dra::Features FeaturesTheServerOffers(client::Client& client, dra::Features wanted,
                                      std::string_view component);

}  // namespace allot::cluster

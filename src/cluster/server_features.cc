#include "cluster/server_features.h"

#include <string>

#include "api/machinery/resources.h"
#include "api/resource/pod_scheduling_context.h"
#include "common/log.h"

namespace allot::cluster {

dra::Features FeaturesTheServerOffers(client::Client& client, dra::Features wanted,
                                      std::string_view component) {
  if (!wanted.control_plane_controller) return wanted;
  api::ListOptions one;
  one.limit = 1;
  auto list = client.List(api::ResourceFor<api::PodSchedulingContext>(), one);
  if (list.ok()) return wanted;
  const StatusCode code = list.status().code();
  if (code != StatusCode::kNotFound && code != StatusCode::kForbidden) return wanted;
  wanted.control_plane_controller = false;
  log::Warning(component,
               std::string("DRAControlPlaneController is off: the server ") +
                   (code == StatusCode::kNotFound
                        ? "does not serve resource.k8s.io/v1alpha3 podschedulingcontexts"
                        : "does not let this identity list podschedulingcontexts") +
                   " (" + list.status().message() + "); claims with a controllerName are left "
                   "to their driver's controller. Pass --feature-gates "
                   "DRAControlPlaneController=false to skip this check.");
  return wanted;
}

}  // namespace allot::cluster

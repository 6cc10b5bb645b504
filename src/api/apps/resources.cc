// The apps/v1 resources (and the legacy core/v1 ReplicationController, which shares ReplicaSet's
// room): RegisterAppsResources for api/register.cc.
#include "api/apps/replica_set.h"
#include "api/apps/stateful_set.h"
#include "api/machinery/resources.h"

namespace allot::api {

void RegisterAppsResources(ResourceRegistry& registry) {
  RegisterReplicaSetResources(registry);
  RegisterStatefulSetResources(registry);
}

}  // namespace allot::api

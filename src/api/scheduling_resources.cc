#include "api/resources.h"

namespace allot::api {

void RegisterSchedulingResources(ResourceRegistry&) {}

}  // namespace allot::api

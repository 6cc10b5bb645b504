#include "api/resources.h"

namespace allot::api {

void RegisterDraResources(ResourceRegistry&) {}

}  // namespace allot::api

#include "api/core.h"

#include "api/reflect.h"
#include "api/scheme.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(Namespace, "", "v1", "Namespace")

}  // namespace allot::api

namespace allot::api {

void RegisterSubresourceKinds(Scheme&) {}

}  // namespace allot::api

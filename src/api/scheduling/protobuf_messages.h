// Protobuf field numbers of PriorityClass (k8s.io/api scheduling/v1/generated.proto). See
// api/machinery/protobuf_fields.h.
#pragma once

#include "api/machinery/protobuf_fields.h"
#include "api/machinery/protobuf_messages.h"
#include "api/scheduling/priority_class.h"

namespace allot::api {

template <>
struct ProtoMessage<PriorityClass> {
  static constexpr ProtoField kFields[] = {
      {"metadata", 1}, {"value", 2}, {"globalDefault", 3}, {"description", 4},
      {"preemptionPolicy", 5}};
};

}  // namespace allot::api

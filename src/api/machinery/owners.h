// Owner references: who controls an object (metav1.GetControllerOf / IsControlledBy).
#pragma once

#include <string_view>

#include "api/machinery/meta.h"

namespace allot::api {

// The ownerReference with controller=true (an object has at most one); null when none.
inline const OwnerReference* ControllerOf(const ObjectMeta& meta) {
  for (const OwnerReference& ref : meta.ownerReferences) {
    if (ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

// Whether the object's controller is the object with this uid.
inline bool IsControlledBy(const ObjectMeta& meta, std::string_view owner_uid) {
  const OwnerReference* ref = ControllerOf(meta);
  return ref && ref->uid == owner_uid;
}

}  // namespace allot::api

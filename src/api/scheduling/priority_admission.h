// Priority admission (Kubernetes' Priority admission plugin, plugin/pkg/admission/priority), run
// by the store through ResourceInfo's admission hooks (api/register.cc wires them):
//
//  - pod create: spec.priorityClassName resolves to spec.priority and spec.preemptionPolicy
//    from its PriorityClass (403 `no PriorityClass with name <n> was found` when there is none);
//    without a name, the globalDefault class with the lowest value gives them (and its name),
//    or priority 0 and PreemptLowerPriority when there is none. A priority or preemptionPolicy
//    written by hand that differs from the class's is refused (403).
//  - pod update: the priority and preemptionPolicy set at create are kept when the update
//    leaves them out (validation forbids changing them).
//  - PriorityClass create / update: at most one globalDefault class (403).
//  - PriorityClass delete: the system classes cannot be deleted (403).
#pragma once

#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "common/status.h"

namespace allot::api {

Status AdmitPodPriority(Object& pod, const ObjectReader& objects);
Status AdmitPodPriorityUpdate(Object& pod, const Object& old, const ObjectReader& objects);
Status AdmitPriorityClass(Object& pc, const ObjectReader& objects);
Status AdmitPriorityClassUpdate(Object& pc, const Object& old, const ObjectReader& objects);
Status AdmitPriorityClassDelete(const Object& pc);

}  // namespace allot::api

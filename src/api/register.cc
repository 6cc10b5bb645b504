#include "api/core/types.h"
#include "api/koordinator/owners.h"
#include "api/machinery/resources.h"
#include "api/machinery/scheme.h"
#include "api/protobuf.h"
#include "api/scheduling/priority_admission.h"
#include "api/scheduling/priority_class.h"

namespace allot::api {

namespace {

// The admission of pods that spans groups: Priority, then the reservation a pod says it draws
// from (api/koordinator/owners.h).
Status AdmitPod(Object& obj, const ObjectReader& objects) {
  ALLOT_RETURN_IF_ERROR(AdmitPodPriority(obj, objects));
  return AdmitReservationAllocated(static_cast<const Pod&>(obj), nullptr, objects);
}

Status AdmitPodUpdate(Object& obj, const Object& old, const ObjectReader& objects) {
  ALLOT_RETURN_IF_ERROR(AdmitPodPriorityUpdate(obj, old, objects));
  return AdmitReservationAllocated(static_cast<const Pod&>(obj), static_cast<const Pod*>(&old),
                                   objects);
}

}  // namespace

const ResourceRegistry& ResourceRegistry::Default() {
  static const ResourceRegistry* registry = [] {
    auto* r = new ResourceRegistry();
    RegisterCoreResources(*r);
    RegisterDraResources(*r);
    RegisterKoordinatorResources(*r);
    RegisterSchedulingResources(*r);
    RegisterPolicyResources(*r);
    RegisterRbacResources(*r);
    RegisterAppsResources(*r);
    RegisterStorageResources(*r);
    // Admission that spans groups (the Priority admission plugin, reservations' owners).
    ResourceInfo* pods = r->Mutable("", "pods");
    pods->admit_create = AdmitPod;
    pods->admit_update = AdmitPodUpdate;
    ResourceInfo* classes = r->Mutable(std::string(kSchedulingGroup), "priorityclasses");
    classes->admit_create = AdmitPriorityClass;
    classes->admit_update = AdmitPriorityClassUpdate;
    classes->admit_delete = AdmitPriorityClassDelete;
    // The defaults inside the parts kinds keep as JSON text, after each kind's own.
    for (const ResourceInfo& info : r->All()) {
      ResourceInfo* m = r->Mutable(info.group, info.resource);
      m->default_json_messages = JsonMessageDefaulterFor(*m->type);
    }
    // Last: served versions point at the resources registered above.
    RegisterDraServedVersions(*r);
    RegisterEventsServedVersion(*r);
    return r;
  }();
  return *registry;
}

void RegisterBuiltinTypes(Scheme& scheme) {
  for (const ResourceInfo& r : ResourceRegistry::Default().All()) scheme.Add(*r.type);
  // Kinds that are bodies of subresources rather than resources of their own are added by
  // their files (e.g. Binding) through RegisterSubresourceKinds.
  RegisterSubresourceKinds(scheme);
}

}  // namespace allot::api

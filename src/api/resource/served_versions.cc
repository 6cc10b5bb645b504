// resource.k8s.io v1beta1 and v1beta2, served beside the stored v1 and converted as
// pkg/apis/resource/v1beta1 and v1beta2 convert them (Kubernetes 1.37):
//
//   v1beta2 has v1's shape field for field: only apiVersion changes.
//   v1beta1 differs in two places. A request keeps the fields of one exact request at its top
//   level (deviceClassName, selectors, allocationMode, count, adminAccess, tolerations,
//   capacity, derivedAttributes) where v1 nests them under `exactly`; a device keeps everything
//   but its name under `basic`. Going to v1beta1, every device gets a `basic` (empty when it has
//   nothing else), as Kubernetes writes it.
//
// kube-apiserver 1.37 serves these two versions only with --runtime-config; Allot serves them
// always, so that manifests written for them apply (docs/compatibility.md).
#include <rapidjson/document.h>

#include <string>
#include <string_view>

#include "api/machinery/json_edit.h"
#include "api/machinery/resources.h"
#include "api/resource/types.h"

namespace allot::api {

namespace {

using namespace json_edit;  // NOLINT: Document, Value, Member, MoveMembers, ...

// The fields of one exact request, in v1beta1's order (DeviceRequest after name).
const std::initializer_list<std::string_view> kExactFields = {
    "deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations",
    "capacity", "derivedAttributes"};
// A device's fields besides its name, in v1beta1's BasicDevice order.
const std::initializer_list<std::string_view> kBasicFields = {
    "attributes", "capacity", "consumesCounters", "nodeName", "nodeSelector", "allNodes", "taints",
    "bindsToNode", "bindingConditions", "bindingFailureConditions", "allowMultipleAllocations",
    "nodeAllocatableResources"};

// The requests of a claim spec ({devices: {requests: [...]}}), or null.
Value* Requests(Value* claim_spec) {
  if (!claim_spec) return nullptr;
  Value* devices = Member(*claim_spec, "devices");
  Value* requests = devices ? Member(*devices, "requests") : nullptr;
  return requests && requests->IsArray() ? requests : nullptr;
}

// The claim spec of a ResourceClaim (spec) or ResourceClaimTemplate (spec.spec).
Value* ClaimSpec(Document& doc) {
  Value* spec = Member(doc, "spec");
  if (!spec) return nullptr;
  std::string_view kind;
  if (Value* k = Member(doc, "kind"); k && k->IsString()) kind = k->GetString();
  if (kind == "ResourceClaimTemplate") return Member(*spec, "spec");
  return spec;
}

Value* SliceDevices(Document& doc) {
  Value* spec = Member(doc, "spec");
  Value* devices = spec ? Member(*spec, "devices") : nullptr;
  return devices && devices->IsArray() ? devices : nullptr;
}

Status V1beta1ToV1(Document& doc) {
  Allocator& a = doc.GetAllocator();
  if (Value* requests = Requests(ClaimSpec(doc))) {
    for (Value& req : requests->GetArray()) {
      if (!req.IsObject()) continue;
      Value exactly(rapidjson::kObjectType);
      MoveMembers(req, exactly, kExactFields, a);
      if (exactly.MemberCount() > 0) {
        req.AddMember("exactly", exactly, a);
        Reorder(req, {"name", "exactly", "firstAvailable"}, a);
      }
    }
  }
  if (Value* devices = SliceDevices(doc)) {
    for (Value& device : devices->GetArray()) {
      Value* basic = Member(device, "basic");
      if (!basic) continue;
      if (!basic->IsObject()) {
        if (!basic->IsNull()) {
          return BadRequestError("spec.devices.basic: expected an object");
        }
        device.EraseMember("basic");
        continue;
      }
      Value fields(rapidjson::kObjectType);
      fields.Swap(*basic);
      device.EraseMember("basic");
      MoveAllMembers(fields, device, a);
    }
  }
  SetApiVersion(doc, "resource.k8s.io/v1");
  return Status();
}

void V1ToV1beta1(Document& doc) {
  Allocator& a = doc.GetAllocator();
  if (Value* requests = Requests(ClaimSpec(doc))) {
    for (Value& req : requests->GetArray()) {
      Value* exactly = Member(req, "exactly");
      if (!exactly) continue;
      Value fields(rapidjson::kObjectType);
      if (exactly->IsObject()) fields.Swap(*exactly);
      req.EraseMember("exactly");
      MoveAllMembers(fields, req, a);
      Reorder(req,
              {"name", "deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
               "firstAvailable", "tolerations", "capacity", "derivedAttributes"},
              a);
    }
  }
  if (Value* devices = SliceDevices(doc)) {
    for (Value& device : devices->GetArray()) {
      if (!device.IsObject()) continue;
      Value basic(rapidjson::kObjectType);
      MoveMembers(device, basic, kBasicFields, a);
      device.AddMember("basic", basic, a);
    }
  }
  SetApiVersion(doc, "resource.k8s.io/v1beta1");
}

Status V1beta2ToV1(Document& doc) {
  SetApiVersion(doc, "resource.k8s.io/v1");
  return Status();
}

void V1ToV1beta2(Document& doc) { SetApiVersion(doc, "resource.k8s.io/v1beta2"); }

}  // namespace

void RegisterDraServedVersions(ResourceRegistry& registry) {
  // In kube-apiserver's order of preference: v1 (stored), v1beta2, v1beta1.
  const std::string group(kResourceGroup);
  for (const char* resource : {"deviceclasses", "resourceclaims", "resourceclaimtemplates",
                               "resourceslices", "devicetaintrules"}) {
    registry.AddServedVersion(group, resource, group, "v1beta2", V1beta2ToV1, V1ToV1beta2,
                              /*same_shape=*/true);
  }
  // v1beta1's shape differs: its protobuf is its own messages, written from its JSON.
  const std::pair<const char*, const char*> kV1beta1[] = {
      {"deviceclasses", "k8s.io.api.resource.v1beta1.DeviceClass"},
      {"resourceclaims", "k8s.io.api.resource.v1beta1.ResourceClaim"},
      {"resourceclaimtemplates", "k8s.io.api.resource.v1beta1.ResourceClaimTemplate"},
      {"resourceslices", "k8s.io.api.resource.v1beta1.ResourceSlice"}};
  for (const auto& [resource, message] : kV1beta1) {
    registry.AddServedVersion(group, resource, group, "v1beta1", V1beta1ToV1, V1ToV1beta1,
                              /*same_shape=*/false, message);
  }
}

}  // namespace allot::api

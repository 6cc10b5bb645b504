// The storage.k8s.io/v1 resources and kubectl's columns for them (pkg/printers/internalversion):
// RegisterStorageResources for api/register.cc.
#include "api/machinery/resources.h"

#include "api/machinery/strategy_hooks.h"
#include "api/storage/csi.h"
#include "api/storage/storage_class.h"
#include "api/storage/volume_attachment.h"

namespace allot::api {

namespace {

std::string BoolText(std::optional<bool> v) { return v.value_or(false) ? "true" : "false"; }

TableColumn Column(std::string name, std::string type, std::string description) {
  return {std::move(name), std::move(type), "", std::move(description), 0};
}

std::vector<TableCell> StorageClassRow(const Object& obj, Time now) {
  const auto& sc = static_cast<const StorageClass&>(obj);
  return {sc.provisioner, sc.reclaimPolicy.value_or("Delete"),
          sc.volumeBindingMode.value_or("Immediate"), BoolText(sc.allowVolumeExpansion),
          AgeCell(obj, now)};
}

std::vector<TableCell> CSIDriverRow(const Object& obj, Time now) {
  const auto& d = static_cast<const CSIDriver&>(obj);
  std::string audiences;
  for (const TokenRequest& t : d.spec.tokenRequests) {
    audiences += (audiences.empty() ? "" : ",") + t.audience;
  }
  std::string modes;
  for (const std::string& m : d.spec.volumeLifecycleModes) modes += (modes.empty() ? "" : ",") + m;
  return {BoolText(d.spec.attachRequired),
          BoolText(d.spec.podInfoOnMount),
          BoolText(d.spec.storageCapacity),
          audiences.empty() ? "<unset>" : audiences,
          BoolText(d.spec.requiresRepublish),
          modes,
          AgeCell(obj, now)};
}

std::vector<TableCell> CSINodeRow(const Object& obj, Time now) {
  const auto& n = static_cast<const CSINode&>(obj);
  return {static_cast<int64_t>(n.spec.drivers.size()), AgeCell(obj, now)};
}

std::vector<TableCell> CSIStorageCapacityRow(const Object& obj, Time now) {
  const auto& c = static_cast<const CSIStorageCapacity&>(obj);
  return {c.storageClassName, c.capacity ? c.capacity->ToString() : "<unset>", AgeCell(obj, now)};
}

std::vector<TableCell> VolumeAttachmentRow(const Object& obj, Time now) {
  const auto& va = static_cast<const VolumeAttachment&>(obj);
  return {va.spec.attacher, va.spec.source.persistentVolumeName.value_or(""), va.spec.nodeName,
          std::string(va.status.attached ? "true" : "false"), AgeCell(obj, now)};
}

ResourceInfo Storage(std::string resource, std::string singular, const TypeInfo& type,
                     bool namespaced) {
  return NewResourceInfo(std::string(kStorageGroup), "v1", std::move(resource),
                         std::move(singular), type, namespaced);
}

}  // namespace

void RegisterStorageResources(ResourceRegistry& registry) {
  ResourceInfo sc = Storage("storageclasses", "storageclass", StorageClass::Type(), false);
  sc.short_names = {"sc"};
  sc.default_fn = hooks::Default<StorageClass, DefaultStorageClass>;
  sc.validate = hooks::Validate<StorageClass, ValidateStorageClass>;
  sc.validate_update = hooks::ValidateUpdate<StorageClass, ValidateStorageClassUpdate>;
  sc.columns = {Column("Provisioner", "string", "Provisioner is the name of the volume plugin"),
                Column("ReclaimPolicy", "string", "What happens to a volume of the class once released"),
                Column("VolumeBindingMode", "string", "When volumes of the class are bound"),
                Column("AllowVolumeExpansion", "string", "Whether volumes of the class may grow"),
                AgeColumn()};
  sc.row = StorageClassRow;
  registry.Add(std::move(sc));

  ResourceInfo drivers = Storage("csidrivers", "csidriver", CSIDriver::Type(), false);
  drivers.default_fn = hooks::Default<CSIDriver, DefaultCSIDriver>;
  drivers.validate = hooks::Validate<CSIDriver, ValidateCSIDriver>;
  drivers.validate_update = hooks::ValidateUpdate<CSIDriver, ValidateCSIDriverUpdate>;
  drivers.columns = {Column("AttachRequired", "boolean", "Whether volumes need attaching"),
                     Column("PodInfoOnMount", "boolean", "Whether pod information is passed on mount"),
                     Column("StorageCapacity", "boolean", "Whether the driver reports capacity"),
                     Column("TokenRequests", "string", "The audiences of the tokens the driver gets"),
                     Column("RequiresRepublish", "boolean", "Whether volumes are republished periodically"),
                     Column("Modes", "string", "The volume lifecycle modes"),
                     AgeColumn()};
  drivers.row = CSIDriverRow;
  registry.Add(std::move(drivers));

  ResourceInfo nodes = Storage("csinodes", "csinode", CSINode::Type(), false);
  nodes.validate = hooks::Validate<CSINode, ValidateCSINode>;
  nodes.validate_update = hooks::ValidateUpdate<CSINode, ValidateCSINodeUpdate>;
  nodes.columns = {Column("Drivers", "integer", "Drivers indicates the number of CSI drivers"),
                   AgeColumn()};
  nodes.row = CSINodeRow;
  registry.Add(std::move(nodes));

  ResourceInfo caps =
      Storage("csistoragecapacities", "csistoragecapacity", CSIStorageCapacity::Type(), true);
  caps.validate = hooks::Validate<CSIStorageCapacity, ValidateCSIStorageCapacity>;
  caps.validate_update =
      hooks::ValidateUpdate<CSIStorageCapacity, ValidateCSIStorageCapacityUpdate>;
  caps.columns = {Column("StorageClassName", "string", "The storage class the capacity is for"),
                  Column("Capacity", "string", "The capacity available"), AgeColumn()};
  caps.row = CSIStorageCapacityRow;
  registry.Add(std::move(caps));

  ResourceInfo va = Storage("volumeattachments", "volumeattachment", VolumeAttachment::Type(), false);
  va.status_subresource = true;
  va.validate = hooks::Validate<VolumeAttachment, ValidateVolumeAttachment>;
  va.validate_update = hooks::ValidateUpdate<VolumeAttachment, ValidateVolumeAttachmentUpdate>;
  va.validate_status =
      hooks::ValidateUpdate<VolumeAttachment, ValidateVolumeAttachmentStatusUpdate>;
  va.columns = {Column("Attacher", "string", "The name of the attacher"),
                Column("PV", "string", "The persistent volume being attached"),
                Column("Node", "string", "The node the volume is attached to"),
                Column("Attached", "boolean", "Whether the volume is attached"), AgeColumn()};
  va.row = VolumeAttachmentRow;
  registry.Add(std::move(va));
}

}  // namespace allot::api

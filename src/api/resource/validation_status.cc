// Validation of ResourceClaim status updates: reservedFor, the allocation result, per-device
// status written by drivers, and the KEP-3063 deallocationRequested flag.
#include <set>

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/validation_util.h"
#include "api/resource/validation.h"
#include "api/resource/validation_internal.h"

namespace allot::api {

namespace dra_internal {

namespace {

// structured.SharedDeviceID.String(): driver/pool/device[/shareID].
std::string SharedDeviceID(const std::string& driver, const std::string& pool,
                           const std::string& device, const std::optional<std::string>& share) {
  std::string id = driver + "/" + pool + "/" + device;
  if (share) id += "/" + *share;
  return id;
}

void ValidateResult(const DeviceRequestAllocationResult& r, const RequestNames& names,
                    const Path& p, FieldErrors& errs) {
  ValidateRequestNameRef(r.request, p.Child("request"), names, errs);
  validation_util::ValidateDriverName(r.driver, p.Child("driver"), errs);
  ValidatePoolName(r.pool, p.Child("pool"), errs);
  ValidateDnsLabel(r.device, p.Child("device"), errs);
  ValidateBindingConditions(r.rare->bindingConditions, r.rare->bindingFailureConditions, p, errs);
  ValidateDeviceTolerations(r.rare->tolerations, p.Child("tolerations"), errs);
  if (r.rare->shareID) validation_util::ValidateUID(*r.rare->shareID, p.Child("shareID"), errs);
}

void ValidateAllocationConfig(const DeviceAllocationConfiguration& c, const RequestNames& names,
                              const Path& p, FieldErrors& errs) {
  if (c.source.empty()) {
    errs.Required(p.Child("source"));
  } else if (c.source != kAllocationConfigSourceClaim && c.source != kAllocationConfigSourceClass) {
    errs.NotSupported(p.Child("source"), c.source,
                      {kAllocationConfigSourceClaim, kAllocationConfigSourceClass});
  }
  ValidateRequestNameRefs(c.requests, p.Child("requests"), names, errs);
  ValidateOpaqueConfig(c.opaque, p, errs);
}

void ValidateNetworkData(const NetworkDeviceData& n, const Path& p, FieldErrors& errs) {
  if (n.interfaceName.size() > kNetworkDeviceDataInterfaceNameMaxLength) {
    errs.TooLong(p.Child("interfaceName"), kNetworkDeviceDataInterfaceNameMaxLength);
  }
  if (n.hardwareAddress.size() > kNetworkDeviceDataHardwareAddressMaxLength) {
    errs.TooLong(p.Child("hardwareAddress"), kNetworkDeviceDataHardwareAddressMaxLength);
  }
  ValidateSet(
      n.ips, kNetworkDeviceDataMaxIPs, p.Child("ips"), errs,
      [&](const std::string& ip, const Path& ip_path) {
        validation_util::ValidateInterfaceAddress(ip, ip_path, errs);
      },
      [](const std::string& ip) { return ip; });
}

void ValidateDeviceStatus(const AllocatedDeviceStatus& d, const std::set<std::string>& allocated,
                          const Path& p, FieldErrors& errs) {
  validation_util::ValidateDriverName(d.driver, p.Child("driver"), errs);
  ValidatePoolName(d.pool, p.Child("pool"), errs);
  ValidateDnsLabel(d.device, p.Child("device"), errs);
  if (d.shareID) validation_util::ValidateUID(*d.shareID, p.Child("shareID"), errs);
  std::string id = SharedDeviceID(d.driver, d.pool, d.device, d.shareID);
  if (!allocated.count(id)) {
    validation_util::InvalidRaw(errs, p, id, "must be an allocated device in the claim");
  }
  if (d.conditions.size() > kAllocatedDeviceStatusMaxConditions) {
    errs.TooMany(p.Child("conditions"), static_cast<int64_t>(d.conditions.size()),
                 kAllocatedDeviceStatusMaxConditions);
  }
  validation_util::ValidateConditions(d.conditions, p.Child("conditions"), errs);
  if (!d.data.empty()) {
    validation_util::ValidateRawObject(d.data, p.Child("data"), kAllocatedDeviceStatusDataMaxLength,
                                       errs);
  }
  if (d.networkData) ValidateNetworkData(*d.networkData, p.Child("networkData"), errs);
}

void ValidateReservedFor(const ResourceClaimStatus& status, const ResourceClaimStatus& old,
                         bool deleted, const Path& p, FieldErrors& errs) {
  Path rp = p.Child("reservedFor");
  ValidateSet(
      status.reservedFor, kResourceClaimReservedForMaxSize, rp, errs,
      [&](const ResourceClaimConsumerReference& r, const Path& ip) {
        if (r.resource.empty()) errs.Required(ip.Child("resource"));
        if (r.name.empty()) errs.Required(ip.Child("name"));
        if (r.uid.empty()) errs.Required(ip.Child("uid"));
      },
      [](const ResourceClaimConsumerReference& r) { return r.uid; });
  if (status.reservedFor.empty()) return;
  if (!status.allocation) {
    errs.Forbidden(rp, "may not be specified when `allocated` is not set");
    return;
  }
  // Consumers may be removed, but not added, while the claim is being deallocated or deleted.
  if (!deleted && !status.deallocationRequested) return;
  for (const ResourceClaimConsumerReference& r : status.reservedFor) {
    bool known = false;
    for (const ResourceClaimConsumerReference& o : old.reservedFor) known = known || o == r;
    if (!known) {
      errs.Forbidden(rp,
                     "new entries may not be added while `deallocationRequested` or "
                     "`deletionTimestamp` are set");
      return;
    }
  }
}

// KEP-3063 rules for deallocationRequested (as in v1alpha3 validation).
void ValidateDeallocationRequested(const ResourceClaimStatus& status,
                                   const ResourceClaimStatus& old, const Path& p,
                                   FieldErrors& errs) {
  if (!old.deallocationRequested && status.deallocationRequested && !status.reservedFor.empty()) {
    errs.Forbidden(p.Child("deallocationRequested"),
                   "deallocation cannot be requested while `reservedFor` is set");
  }
  if (!status.allocation && status.deallocationRequested) {
    errs.Forbidden(p, "`allocation` must be set when `deallocationRequested` is set");
  }
  if (old.deallocationRequested && !status.deallocationRequested && status.allocation) {
    errs.Forbidden(p.Child("deallocationRequested"), "may not be cleared when `allocation` is set");
  }
}

}  // namespace

void ValidateAllocationResult(const AllocationResult& allocation, const ResourceClaimSpec& spec,
                              const Path& p, FieldErrors& errs) {
  RequestNames names(spec.devices);
  Path dp = p.Child("devices");
  ValidateSlice(allocation.devices.results, kAllocationResultsMaxSize, dp.Child("results"), errs,
                [&](const DeviceRequestAllocationResult& r, const Path& rp) {
                  ValidateResult(r, names, rp, errs);
                });
  ValidateSlice(allocation.devices.config, 2 * kDeviceConfigMaxSize, dp.Child("config"), errs,
                [&](const DeviceAllocationConfiguration& c, const Path& cp) {
                  ValidateAllocationConfig(c, names, cp, errs);
                });
  if (allocation.nodeSelector) {
    ValidateNodeSelector(*allocation.nodeSelector, /*allow_invalid_label_values=*/false,
                         p.Child("nodeSelector"), errs);
  }
  if (!allocation.controllerName.empty()) {
    validation_util::ValidateDriverName(allocation.controllerName, p.Child("controllerName"), errs);
  }
}

}  // namespace dra_internal

void ValidateResourceClaimStatusUpdate(const ResourceClaim& obj, const ResourceClaim& old,
                                       FieldErrors& errs) {
  using namespace dra_internal;  // NOLINT(build/namespaces): .cc file, internal helpers
  ValidateObjectMetaUpdate(obj.metadata, old.metadata, errs);
  Path p("status");
  const ResourceClaimStatus& status = obj.status;
  bool deleted = obj.metadata.rare->deletionTimestamp.has_value();
  ValidateReservedFor(status, old.status, deleted, p, errs);

  std::set<std::string> allocated;
  if (status.allocation) {
    for (const DeviceRequestAllocationResult& r : status.allocation->devices.results) {
      allocated.insert(SharedDeviceID(r.driver, r.pool, r.device, r.rare->shareID));
    }
  }
  ValidateSet(
      status.devices, 0, p.Child("devices"), errs,
      [&](const AllocatedDeviceStatus& d, const Path& dp) {
        ValidateDeviceStatus(d, allocated, dp, errs);
      },
      [](const AllocatedDeviceStatus& d) {
        return SharedDeviceID(d.driver, d.pool, d.device, d.shareID);
      });

  // A populated allocation may only be cleared, never changed. New results are validated;
  // stored ones are not re-validated because the rules for new results may have tightened.
  if (old.status.allocation && status.allocation) {
    if (!(*status.allocation == *old.status.allocation)) errs.Immutable(p.Child("allocation"));
  } else if (status.allocation) {
    ValidateAllocationResult(*status.allocation, obj.spec, p.Child("allocation"), errs);
  }
  ValidateDeallocationRequested(status, old.status, p, errs);
}

}  // namespace allot::api

// CSIDriver, CSINode and CSIStorageCapacity: defaulting and validation
// (pkg/apis/storage/validation), Kubernetes 1.37.
#include "api/storage/csi.h"

#include <algorithm>
#include <set>

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(CSIDriver, "storage.k8s.io", "v1", "CSIDriver")
ALLOT_DEFINE_TYPE(CSINode, "storage.k8s.io", "v1", "CSINode")
ALLOT_DEFINE_TYPE(CSIStorageCapacity, "storage.k8s.io", "v1", "CSIStorageCapacity")

namespace {

constexpr size_t kMaxNodeIdLength = 256;
constexpr int64_t kMinTokenSeconds = 10 * 60;
constexpr int64_t kMaxTokenSeconds = int64_t{1} << 32;
const std::vector<std::string_view> kFsGroupPolicies = {"File", "None",
                                                        "ReadWriteOnceWithFSType"};
const std::vector<std::string_view> kLifecycleModes = {"Persistent", "Ephemeral"};

void ValidateTokenRequests(const std::vector<TokenRequest>& requests, const Path& p,
                           FieldErrors& errs) {
  std::set<std::string> audiences;
  for (size_t i = 0; i < requests.size(); ++i) {
    const TokenRequest& r = requests[i];
    const Path ip = p.Index(i);
    if (!audiences.insert(r.audience).second) {
      errs.Duplicate(ip.Child("audience"), r.audience);
      continue;
    }
    if (!r.expirationSeconds) continue;
    if (*r.expirationSeconds < kMinTokenSeconds) {
      errs.InvalidInt(ip.Child("expirationSeconds"), *r.expirationSeconds,
                      "may not specify a duration less than 10 minutes");
    }
    if (*r.expirationSeconds > kMaxTokenSeconds) {
      errs.InvalidInt(ip.Child("expirationSeconds"), *r.expirationSeconds,
                      "may not specify a duration larger than 2^32 seconds");
    }
  }
}

void ValidateDriverSpec(const CSIDriverSpec& s, const Path& p, FieldErrors& errs) {
  // Kubernetes spells the path "attachedRequired".
  if (!s.attachRequired) errs.Required(p.Child("attachedRequired"));
  if (!s.podInfoOnMount) errs.Required(p.Child("podInfoOnMount"));
  if (!s.storageCapacity) errs.Required(p.Child("storageCapacity"));
  if (!s.fsGroupPolicy) {
    errs.Required(p.Child("fsGroupPolicy"));
  } else if (std::find(kFsGroupPolicies.begin(), kFsGroupPolicies.end(), *s.fsGroupPolicy) ==
             kFsGroupPolicies.end()) {
    errs.NotSupported(p.Child("fsGroupPolicy"), *s.fsGroupPolicy, kFsGroupPolicies);
  }
  ValidateTokenRequests(s.tokenRequests, p.Child("tokenRequests"), errs);
  for (const std::string& mode : s.volumeLifecycleModes) {
    if (std::find(kLifecycleModes.begin(), kLifecycleModes.end(), mode) == kLifecycleModes.end()) {
      errs.NotSupported(p.Child("volumeLifecycleModes"), mode, kLifecycleModes);
    }
  }
  if (!s.seLinuxMount) errs.Required(p.Child("seLinuxMount"));
  if (s.nodeAllocatableUpdatePeriodSeconds && *s.nodeAllocatableUpdatePeriodSeconds < 10) {
    errs.InvalidInt(p.Child("nodeAllocatableUpdatePeriodSeconds"),
                    *s.nodeAllocatableUpdatePeriodSeconds,
                    "must be greater than or equal to 10 seconds");
  }
  if (s.serviceAccountTokenInSecrets.value_or(false) && s.tokenRequests.empty()) {
    errs.InvalidRendered(p.Child("serviceAccountTokenInSecrets"), "true",
                         "serviceAccountTokenInSecrets is set but no tokenRequests are specified");
  }
}

void ValidateNonNegativeQuantity(const std::optional<Quantity>& q, const Path& p,
                                 FieldErrors& errs) {
  if (q && q->Sign() < 0) errs.Invalid(p, q->ToString(), "must be greater than or equal to 0");
}

}  // namespace

void DefaultCSIDriver(CSIDriver& driver) {
  CSIDriverSpec& s = driver.spec;
  if (!s.attachRequired) s.attachRequired = true;
  if (!s.podInfoOnMount) s.podInfoOnMount = false;
  if (!s.storageCapacity) s.storageCapacity = false;
  if (!s.fsGroupPolicy) s.fsGroupPolicy = "ReadWriteOnceWithFSType";
  if (s.volumeLifecycleModes.empty()) s.volumeLifecycleModes = {"Persistent"};
  if (!s.requiresRepublish) s.requiresRepublish = false;
  if (!s.seLinuxMount) s.seLinuxMount = false;
}

void ValidateCSIDriver(const CSIDriver& driver, FieldErrors& errs) {
  // Kubernetes checks the name as a CSI driver name, under the path "name".
  ValidateObjectMeta(driver.metadata, false, NameIsPathSegment, errs);
  validation_util::ValidateDriverName(driver.metadata.name, Path("name"), errs);
  ValidateDriverSpec(driver.spec, Path("spec"), errs);
}

void ValidateCSIDriverUpdate(const CSIDriver& driver, const CSIDriver& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(driver.metadata, old.metadata, errs);
  const Path spec("spec");
  if (driver.spec.attachRequired != old.spec.attachRequired) {
    errs.InvalidRendered(spec.Child("attachedRequired"),
                         driver.spec.attachRequired.value_or(false) ? "true" : "false",
                         "field is immutable");
  }
  if (driver.spec.volumeLifecycleModes != old.spec.volumeLifecycleModes) {
    errs.InvalidRendered(spec.Child("volumeLifecycleModes"),
                         GoStringSlice(driver.spec.volumeLifecycleModes), "field is immutable");
  }
}

void ValidateCSINode(const CSINode& node, FieldErrors& errs) {
  ValidateObjectMeta(node.metadata, false, NameIsDnsSubdomain, errs);
  const Path drivers = Path("spec").Child("drivers");
  std::set<std::string> names;
  for (size_t i = 0; i < node.spec.drivers.size(); ++i) {
    const CSINodeDriver& d = node.spec.drivers[i];
    const Path dp = drivers.Index(i);
    validation_util::ValidateDriverName(d.name, dp.Child("name"), errs);
    if (d.nodeID.empty()) {
      errs.Required(dp.Child("nodeID"));
    } else if (d.nodeID.size() > kMaxNodeIdLength) {
      errs.Invalid(dp.Child("nodeID"), d.nodeID, "must be 256 characters or less");
    }
    if (d.allocatable && d.allocatable->count) {
      ValidateNonnegative(*d.allocatable->count, dp.Child("allocatable").Child("count"), errs);
    }
    if (!names.insert(d.name).second) errs.Duplicate(dp.Child("name"), d.name);
    std::set<std::string> keys;
    for (const std::string& key : d.topologyKeys) {
      if (key.empty()) errs.Required(dp);
      if (!keys.insert(key).second) errs.Duplicate(dp, key);
      ValidateLabelName(key, dp, errs);
    }
  }
}

void ValidateCSINodeUpdate(const CSINode& node, const CSINode& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(node.metadata, old.metadata, errs);
  const Path drivers = Path("spec").Child("drivers");
  for (const CSINodeDriver& was : old.spec.drivers) {
    for (size_t i = 0; i < node.spec.drivers.size(); ++i) {
      const CSINodeDriver& now = node.spec.drivers[i];
      if (now.name != was.name) continue;
      if (now.nodeID != was.nodeID) {
        errs.Invalid(drivers.Index(i).Child("nodeID"), now.nodeID, "field is immutable");
      }
      if (now.topologyKeys != was.topologyKeys) {
        errs.InvalidRendered(drivers.Index(i).Child("topologyKeys"),
                             GoStringSlice(now.topologyKeys), "field is immutable");
      }
    }
  }
}

void ValidateCSIStorageCapacity(const CSIStorageCapacity& c, FieldErrors& errs) {
  ValidateObjectMeta(c.metadata, true, NameIsDnsSubdomain, errs);
  if (c.nodeTopology) ValidateLabelSelector(*c.nodeTopology, Path("nodeTopology"), errs);
  for (const std::string& m : DnsSubdomainErrors(c.storageClassName)) {
    errs.Invalid(Path("storageClassName"), c.storageClassName, m);
  }
  ValidateNonNegativeQuantity(c.capacity, Path("capacity"), errs);
  ValidateNonNegativeQuantity(c.maximumVolumeSize, Path("maximumVolumeSize"), errs);
}

void ValidateCSIStorageCapacityUpdate(const CSIStorageCapacity& c, const CSIStorageCapacity& old,
                                      FieldErrors& errs) {
  ValidateObjectMetaUpdate(c.metadata, old.metadata, errs);
  if (c.nodeTopology != old.nodeTopology) {
    errs.InvalidRendered(Path("nodeTopology"), "&v1.LabelSelector{...}", "field is immutable");
  }
  if (c.storageClassName != old.storageClassName) {
    errs.Invalid(Path("storageClassName"), c.storageClassName, "field is immutable");
  }
}

}  // namespace allot::api

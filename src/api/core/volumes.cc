// PersistentVolume and PersistentVolumeClaim: defaulting, validation (pkg/apis/core/validation
// ValidatePersistentVolume*, ValidatePersistentVolumeClaim*) and kubectl's columns
// (pkg/printers/internalversion), Kubernetes 1.37. Where Kubernetes appends a Go diff of the
// changed spec to an immutability error, Allot gives the sentence alone.
#include "api/core/volumes.h"

#include <algorithm>

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"
#include "api/machinery/strategy_hooks.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(PersistentVolume, "", "v1", "PersistentVolume")
ALLOT_DEFINE_TYPE(PersistentVolumeClaim, "", "v1", "PersistentVolumeClaim")

namespace {

const std::vector<std::string_view> kAccessModes = {"ReadOnlyMany", "ReadWriteMany",
                                                    "ReadWriteOnce", "ReadWriteOncePod"};
const std::vector<std::string_view> kReclaimPolicies = {"Delete", "Recycle", "Retain"};
const std::vector<std::string_view> kVolumeModes = {"Block", "Filesystem"};

void ValidateAccessModes(const std::vector<std::string>& modes, const Path& p,
                         std::string_view required_detail, FieldErrors& errs) {
  if (modes.empty()) errs.Required(p, required_detail);
  bool once_pod = false, other = false;
  for (const std::string& m : modes) {
    if (!validation_util::IsOneOf(m, kAccessModes)) {
      errs.NotSupported(p, m, kAccessModes);
    } else if (m == "ReadWriteOncePod") {
      once_pod = true;
    } else {
      other = true;
    }
  }
  if (once_pod && other) errs.Forbidden(p, "may not use ReadWriteOncePod with other access modes");
}

void ValidatePositive(const Quantity& q, const Path& p, FieldErrors& errs) {
  if (q.Sign() <= 0) errs.Invalid(p, q.ToString(), "must be greater than zero");
}

void ValidateClassName(std::string_view name, const Path& p, FieldErrors& errs) {
  if (name.empty()) return;
  for (const std::string& m : DnsSubdomainErrors(name)) errs.Invalid(p, name, m);
}

void ValidateVolumeMode(const std::optional<std::string>& mode, const Path& p,
                        FieldErrors& errs) {
  if (mode && !validation_util::IsOneOf(*mode, kVolumeModes)) {
    errs.NotSupported(p, *mode, kVolumeModes);
  }
}

std::string JoinModes(const std::vector<std::string>& modes) {
  // kubectl's short forms (RWO, ROX, RWX, RWOP), joined by ",".
  std::string out;
  for (const std::string& m : modes) {
    std::string_view s = m == "ReadWriteOnce"      ? "RWO"
                         : m == "ReadOnlyMany"     ? "ROX"
                         : m == "ReadWriteMany"    ? "RWX"
                         : m == "ReadWriteOncePod" ? "RWOP"
                                                   : std::string_view(m);
    if (!out.empty()) out += ",";
    out += s;
  }
  return out;
}

std::string StorageOf(const ResourceList& list) {
  auto it = list.find("storage");
  return it == list.end() ? "" : it->second.ToString();
}

std::vector<TableCell> PersistentVolumeRow(const Object& obj, Time now) {
  const auto& pv = static_cast<const PersistentVolume&>(obj);
  std::string claim;
  if (pv.spec.claimRef) claim = pv.spec.claimRef->namespace_ + "/" + pv.spec.claimRef->name;
  return {StorageOf(pv.spec.capacity),
          JoinModes(pv.spec.accessModes),
          pv.spec.persistentVolumeReclaimPolicy,
          pv.status.phase,
          claim,
          pv.spec.storageClassName,
          pv.spec.volumeAttributesClassName.value_or("<unset>"),
          pv.status.reason,
          AgeCell(obj, now),
          pv.spec.volumeMode.value_or("<unset>")};
}

std::vector<TableCell> PersistentVolumeClaimRow(const Object& obj, Time now) {
  const auto& pvc = static_cast<const PersistentVolumeClaim&>(obj);
  const bool bound = pvc.spec.volumeName.size() > 0;
  return {pvc.metadata.rare->deletionTimestamp ? std::string("Terminating") : pvc.status.phase,
          pvc.spec.volumeName,
          bound ? StorageOf(pvc.status.capacity) : std::string(),
          bound ? JoinModes(pvc.status.accessModes) : std::string(),
          pvc.spec.storageClassName.value_or(""),
          pvc.spec.volumeAttributesClassName.value_or("<unset>"),
          AgeCell(obj, now),
          pvc.spec.volumeMode.value_or("<unset>")};
}

std::optional<std::string> PersistentVolumeClaimFieldValue(const Object& obj,
                                                           std::string_view field) {
  if (field == "status.phase") return static_cast<const PersistentVolumeClaim&>(obj).status.phase;
  return std::nullopt;
}

std::optional<std::string> PersistentVolumeFieldValue(const Object& obj, std::string_view field) {
  if (field == "status.phase") return static_cast<const PersistentVolume&>(obj).status.phase;
  return std::nullopt;
}

// Visits a spec and keeps the names of the RawJson fields (the sources) that are set.
struct SourceCollector {
  std::vector<const char*> names;
  void operator()(const char* name, const RawJson& value, FieldTags = {}) {
    if (!value.empty()) names.push_back(name);
  }
  template <class T>
  void operator()(const char*, const T&, FieldTags = {}) {}
};

TableColumn Column(std::string name, std::string description, int priority = 0) {
  return {std::move(name), "string", "", std::move(description), priority};
}

}  // namespace

std::vector<const char*> PersistentVolumeSpec::SetSources() const {
  SourceCollector c;
  const_cast<PersistentVolumeSpec*>(this)->Visit(c);
  return c.names;
}

void DefaultPersistentVolume(PersistentVolume& pv) {
  if (pv.spec.persistentVolumeReclaimPolicy.empty()) pv.spec.persistentVolumeReclaimPolicy = "Retain";
  if (!pv.spec.volumeMode) pv.spec.volumeMode = "Filesystem";
  if (pv.status.phase.empty()) pv.status.phase = "Pending";
}

void DefaultPersistentVolumeClaim(PersistentVolumeClaim& pvc) {
  if (!pvc.spec.volumeMode) pvc.spec.volumeMode = "Filesystem";
  if (pvc.status.phase.empty()) pvc.status.phase = "Pending";
}

void ValidatePersistentVolume(const PersistentVolume& pv, FieldErrors& errs) {
  ValidateObjectMeta(pv.metadata, false, NameIsPathSegment, errs);
  const Path spec("spec");
  ValidateAccessModes(pv.spec.accessModes, spec.Child("accessModes"), "", errs);
  const Path cap = spec.Child("capacity");
  if (pv.spec.capacity.empty()) errs.Required(cap);
  if (pv.spec.capacity.find("storage") == pv.spec.capacity.end() || pv.spec.capacity.size() > 1) {
    // The map as Kubernetes renders it: JSON, null when there is none.
    std::string rendered = pv.spec.capacity.empty() ? "null" : "{";
    for (const auto& [k, q] : pv.spec.capacity) {
      rendered += (rendered.size() > 1 ? "," : "") + Quote(k) + ":" + Quote(q.ToString());
    }
    if (!pv.spec.capacity.empty()) rendered += "}";
    errs.NotSupportedRendered(cap, rendered, {"storage"});
  }
  for (const auto& [k, q] : pv.spec.capacity) ValidatePositive(q, cap.Key(k), errs);
  const std::string& policy = pv.spec.persistentVolumeReclaimPolicy;
  if (!policy.empty() && !validation_util::IsOneOf(policy, kReclaimPolicies)) {
    errs.NotSupported(spec.Child("persistentVolumeReclaimPolicy"), policy, kReclaimPolicies);
  }
  if (pv.spec.nodeAffinity) {
    if (!pv.spec.nodeAffinity->required) {
      errs.Required(spec.Child("nodeAffinity").Child("required"), "must specify required node constraints");
    } else {
      ValidateNodeSelector(*pv.spec.nodeAffinity->required, false,
                           spec.Child("nodeAffinity").Child("required"), errs);
    }
  }
  const std::vector<const char*> sources = pv.spec.SetSources();
  if (sources.empty()) errs.Required(spec, "must specify a volume type");
  for (size_t i = 1; i < sources.size(); ++i) {
    errs.Forbidden(spec.Child(sources[i]), "may not specify more than 1 volume type");
  }
  if (!pv.spec.local.empty() &&
      (!pv.spec.nodeAffinity || !pv.spec.nodeAffinity->required)) {
    errs.Required(spec.Child("nodeAffinity"), "Local volume requires node affinity");
  }
  ValidateClassName(pv.spec.storageClassName, spec.Child("storageClassName"), errs);
  ValidateVolumeMode(pv.spec.volumeMode, spec.Child("volumeMode"), errs);
}

void ValidatePersistentVolumeUpdate(const PersistentVolume& pv, const PersistentVolume& old,
                                    FieldErrors& errs) {
  ValidateObjectMetaUpdate(pv.metadata, old.metadata, errs);
  PersistentVolumeSpec source = pv.spec, old_source = old.spec;
  // Compare only the sources: clear what may change.
  for (PersistentVolumeSpec* s : {&source, &old_source}) {
    s->capacity = {};
    s->accessModes.clear();
    s->claimRef.reset();
    s->persistentVolumeReclaimPolicy.clear();
    s->storageClassName.clear();
    s->mountOptions.clear();
    s->volumeMode.reset();
    s->nodeAffinity.reset();
    s->volumeAttributesClassName.reset();
  }
  if (source != old_source) {
    errs.Forbidden(Path("spec").Child("persistentvolumesource"),
                   "spec.persistentvolumesource is immutable after creation");
  }
  if (pv.spec.volumeMode != old.spec.volumeMode) {
    errs.Invalid(Path("volumeMode"), pv.spec.volumeMode.value_or(""), "field is immutable");
  }
  if (old.spec.nodeAffinity && pv.spec.nodeAffinity != old.spec.nodeAffinity) {
    errs.Invalid(Path("nodeAffinity"), "", "field is immutable");
  }
}

void ValidatePersistentVolumeClaimSpec(const PersistentVolumeClaimSpec& spec, const Path& p,
                                       FieldErrors& errs) {
  ValidateAccessModes(spec.accessModes, p.Child("accessModes"), "at least 1 access mode is required",
                      errs);
  if (spec.selector) ValidateLabelSelector(*spec.selector, p.Child("selector"), errs);
  auto storage = spec.resources.requests.find("storage");
  const Path sp = p.Child("resources").Key("storage");
  if (storage == spec.resources.requests.end()) {
    errs.Required(sp);
  } else {
    ValidatePositive(storage->second, sp, errs);
  }
  if (spec.storageClassName) {
    ValidateClassName(*spec.storageClassName, p.Child("storageClassName"), errs);
  }
  ValidateVolumeMode(spec.volumeMode, p.Child("volumeMode"), errs);
  auto validate_ref = [&](const std::string& kind, const std::string& name, const Path& rp) {
    if (name.empty()) errs.Required(rp.Child("name"));
    if (kind.empty()) errs.Required(rp.Child("kind"));
  };
  if (spec.dataSource) {
    validate_ref(spec.dataSource->kind, spec.dataSource->name, p.Child("dataSource"));
  }
  if (spec.dataSourceRef) {
    validate_ref(spec.dataSourceRef->kind, spec.dataSourceRef->name, p.Child("dataSourceRef"));
  }
}

void ValidatePersistentVolumeClaim(const PersistentVolumeClaim& pvc, FieldErrors& errs) {
  ValidateObjectMeta(pvc.metadata, true, NameIsDnsSubdomain, errs);
  ValidatePersistentVolumeClaimSpec(pvc.spec, Path("spec"), errs);
}

void ValidatePersistentVolumeClaimUpdate(const PersistentVolumeClaim& pvc,
                                         const PersistentVolumeClaim& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(pvc.metadata, old.metadata, errs);
  PersistentVolumeClaimSpec spec = pvc.spec, old_spec = old.spec;
  if (old_spec.volumeName.empty()) old_spec.volumeName = spec.volumeName;  // set once
  if (pvc.status.phase == "Bound") {
    auto old_storage = old.spec.resources.requests.find("storage");
    if (old_storage != old.spec.resources.requests.end()) {
      spec.resources.requests["storage"] = old_storage->second;
    }
    spec.volumeAttributesClassName = old_spec.volumeAttributesClassName;
  }
  if (spec != old_spec) {
    errs.Forbidden(Path("spec"),
                   "spec is immutable after creation except resources.requests and "
                   "volumeAttributesClassName for bound claims");
  }
  auto now = pvc.spec.resources.requests.find("storage");
  auto was = old.spec.resources.requests.find("storage");
  if (now != pvc.spec.resources.requests.end() && was != old.spec.resources.requests.end() &&
      now->second.Compare(was->second) < 0) {
    auto status = old.status.capacity.find("storage");
    if (status != old.status.capacity.end() && now->second.Compare(status->second) <= 0) {
      errs.Forbidden(Path("spec").Child("resources").Child("requests").Child("storage"),
                     "field can not be less than status.capacity");
    }
  }
}

void RegisterVolumeResources(ResourceRegistry& registry) {
  ResourceInfo pv = NewResourceInfo("", "v1", "persistentvolumes", "persistentvolume",
                                    PersistentVolume::Type(), /*namespaced=*/false);
  pv.short_names = {"pv"};
  pv.status_subresource = true;
  pv.default_fn = hooks::Default<PersistentVolume, DefaultPersistentVolume>;
  pv.validate = hooks::Validate<PersistentVolume, ValidatePersistentVolume>;
  pv.validate_update = hooks::ValidateUpdate<PersistentVolume, ValidatePersistentVolumeUpdate>;
  pv.field_labels = {"status.phase"};
  pv.field_value = PersistentVolumeFieldValue;
  pv.columns = {Column("Capacity", "The capacity of the volume"),
                Column("Access Modes", "The access modes of the volume"),
                Column("Reclaim Policy", "What happens to a persistent volume when released from its claim"),
                Column("Status", "The phase of the volume"),
                Column("Claim", "The claim bound to the volume"),
                Column("StorageClass", "The storage class of the volume"),
                Column("VolumeAttributesClass", "The volume attributes class of the volume"),
                Column("Reason", "The reason the volume is in its phase"),
                AgeColumn(),
                Column("VolumeMode", "The volume mode of the volume", 1)};
  pv.row = PersistentVolumeRow;
  registry.Add(std::move(pv));

  ResourceInfo pvc = NewResourceInfo("", "v1", "persistentvolumeclaims", "persistentvolumeclaim",
                                     PersistentVolumeClaim::Type(), /*namespaced=*/true);
  pvc.short_names = {"pvc"};
  pvc.status_subresource = true;
  pvc.default_fn = hooks::Default<PersistentVolumeClaim, DefaultPersistentVolumeClaim>;
  pvc.validate = hooks::Validate<PersistentVolumeClaim, ValidatePersistentVolumeClaim>;
  pvc.validate_update =
      hooks::ValidateUpdate<PersistentVolumeClaim, ValidatePersistentVolumeClaimUpdate>;
  pvc.field_labels = {"status.phase"};
  pvc.field_value = PersistentVolumeClaimFieldValue;
  pvc.columns = {Column("Status", "The phase of the claim"),
                 Column("Volume", "The volume bound to the claim"),
                 Column("Capacity", "The capacity of the bound volume"),
                 Column("Access Modes", "The access modes of the bound volume"),
                 Column("StorageClass", "The storage class of the claim"),
                 Column("VolumeAttributesClass", "The volume attributes class of the claim"),
                 AgeColumn(),
                 Column("VolumeMode", "The volume mode of the claim", 1)};
  pvc.row = PersistentVolumeClaimRow;
  registry.Add(std::move(pvc));
}

}  // namespace allot::api

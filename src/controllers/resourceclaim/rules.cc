#include "controllers/resourceclaim/rules.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "api/core/pod_state.h"
#include "api/machinery/owners.h"
#include "api/resource/validation.h"

namespace allot::controllers {

namespace {

bool IsPodController(const api::OwnerReference& owner) {
  return owner.controller.value_or(false) && owner.apiVersion == "v1" && owner.kind == "Pod";
}

bool IsReservationController(const api::OwnerReference& owner) {
  return owner.controller.value_or(false) && owner.kind == "Reservation" &&
         owner.apiVersion == api::Reservation::Type().api_version;
}

}  // namespace

PodClaimName ClaimNameFor(const api::Pod& pod, const api::PodResourceClaim& pod_claim) {
  PodClaimName out;
  if (pod_claim.resourceClaimName) {
    out.kind = PodClaimName::Kind::kName;
    out.name = *pod_claim.resourceClaimName;
    return out;
  }
  if (!pod_claim.resourceClaimTemplateName) return out;  // kUnknownSource
  for (const api::PodResourceClaimStatus& s : pod.status.resourceClaimStatuses) {
    if (s.name != pod_claim.name) continue;
    if (!s.resourceClaimName) {
      out.kind = PodClaimName::Kind::kNotNeeded;
      return out;
    }
    out.kind = PodClaimName::Kind::kName;
    out.name = *s.resourceClaimName;
    out.check_owner = true;
    return out;
  }
  out.kind = PodClaimName::Kind::kNotCreated;
  return out;
}

Status CheckClaimIsForPod(const api::Pod& pod, const api::ResourceClaim& claim) {
  if (api::IsControlledBy(claim.metadata, pod.metadata.uid)) return Status::Ok();
  return Status(StatusCode::kConflict, "ResourceClaim " + claim.metadata.namespace_ + "/" +
                                           claim.metadata.name + " was not created for pod " +
                                           pod.metadata.namespace_ + "/" + pod.metadata.name +
                                           " (pod is not owner)");
}

bool IsReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim) {
  for (const auto& r : claim.status.reservedFor) {
    if (r.uid == pod.metadata.uid) return true;
  }
  return false;
}

bool CanBeReserved(const api::ResourceClaim& claim) {
  return claim.status.reservedFor.size() < api::kResourceClaimReservedForMaxSize &&
         !claim.status.deallocationRequested && !claim.metadata.rare->deletionTimestamp;
}

bool ClaimChangeNeedsSync(const api::ResourceClaim& before, const api::ResourceClaim& after) {
  if (after.metadata.rare->deletionTimestamp || before.metadata.rare->deletionTimestamp) return true;
  if (before.status.allocation.has_value() != after.status.allocation.has_value()) return true;
  const auto& a = before.status.reservedFor;
  const auto& b = after.status.reservedFor;
  if (!std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
        return x.uid == y.uid && x.name == y.name && x.resource == y.resource &&
               x.apiGroup == y.apiGroup;
      })) {
    return true;
  }
  const auto& o = before.metadata.ownerReferences;
  const auto& n = after.metadata.ownerReferences;
  return !std::equal(o.begin(), o.end(), n.begin(), n.end(), [](const auto& x, const auto& y) {
    return x.uid == y.uid && x.controller == y.controller && x.kind == y.kind;
  });
}

bool IsPodDone(const api::Pod& pod) {
  return api::IsPodTerminal(pod) || (pod.metadata.rare->deletionTimestamp && pod.spec.nodeName.empty());
}

bool PodNeedsClaims(const api::Pod& pod, bool removed) { return !removed && !IsPodDone(pod); }

std::optional<PodRef> OwningPod(const api::ResourceClaim& claim) {
  for (const api::OwnerReference& owner : claim.metadata.ownerReferences) {
    if (IsPodController(owner)) return PodRef{owner.name, owner.uid};
  }
  return std::nullopt;
}

std::optional<PodRef> OwningReservation(const api::ResourceClaim& claim) {
  for (const api::OwnerReference& owner : claim.metadata.ownerReferences) {
    if (IsReservationController(owner)) return PodRef{owner.name, owner.uid};
  }
  return std::nullopt;
}

bool IsReservationTerminal(const api::Reservation& r) {
  return r.status.phase == api::kReservationSucceeded || r.status.phase == api::kReservationFailed;
}

std::string ReservationClaimNamespace(const api::Reservation& r) {
  return r.spec.template_ && !r.spec.template_->metadata.namespace_.empty()
             ? r.spec.template_->metadata.namespace_
             : "default";
}

bool NeedsAdminAccess(const api::ResourceClaimSpec& spec) {
  for (const api::DeviceRequest& r : spec.devices.requests) {
    if (r.exactly && r.exactly->rare->adminAccess.value_or(false)) return true;
  }
  return false;
}

bool NeedsSchedulingContext(const api::Pod& pod, const api::ResourceClaim& claim) {
  return !pod.spec.nodeName.empty() && !claim.status.allocation &&
         !claim.spec.controllerName.empty() &&
         claim.spec.allocationMode != api::kClaimAllocationImmediate &&
         !claim.metadata.rare->deletionTimestamp;
}

bool IsControlPlaneClaim(const api::ResourceClaim& claim) {
  return !claim.spec.controllerName.empty() ||
         (claim.status.allocation && !claim.status.allocation->controllerName.empty());
}

std::string GeneratedClaimName(std::string_view pod, std::string_view pod_claim) {
  std::string name = std::string(pod) + "-" + std::string(pod_claim) + "-";
  if (name.size() <= kGeneratedClaimNameMaxBase) return name;
  // Cutting only the end (as the server would) could lose the pod claim name entirely; cut
  // both parts in proportion to their lengths instead.
  const size_t total = name.size();
  return std::string(pod.substr(0, pod.size() * kGeneratedClaimNameMaxBase / total)) + "-" +
         std::string(pod_claim.substr(0, pod_claim.size() * kGeneratedClaimNameMaxBase / total));
}

std::unique_ptr<api::ResourceClaim> ClaimFromTemplate(api::OwnerReference owner,
                                                      const std::string& ns,
                                                      const api::PodResourceClaim& pod_claim,
                                                      const api::ResourceClaimTemplate& tmpl) {
  auto claim = std::make_unique<api::ResourceClaim>();
  api::ObjectMeta& meta = claim->metadata;
  meta.generateName = GeneratedClaimName(owner.name, pod_claim.name);
  meta.namespace_ = ns;
  meta.labels = tmpl.spec.metadata.labels;
  meta.annotations = tmpl.spec.metadata.annotations;
  meta.annotations[std::string(kPodClaimNameAnnotation)] = pod_claim.name;
  owner.controller = true;
  owner.blockOwnerDeletion = true;
  meta.ownerReferences.push_back(std::move(owner));
  claim->spec = tmpl.spec.spec;
  return claim;
}

std::unique_ptr<api::ResourceClaim> ClaimFromTemplate(const api::Pod& pod,
                                                      const api::PodResourceClaim& pod_claim,
                                                      const api::ResourceClaimTemplate& tmpl) {
  api::OwnerReference owner;
  owner.apiVersion = "v1";
  owner.kind = "Pod";
  owner.name = pod.metadata.name;
  owner.uid = pod.metadata.uid;
  return ClaimFromTemplate(std::move(owner), pod.metadata.namespace_, pod_claim, tmpl);
}

std::string ResourceClaimStatusesPatch(const std::map<std::string, std::string>& claims) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("status");
  w.StartObject();
  w.Key("resourceClaimStatuses");
  w.StartArray();
  for (const auto& [pod_claim, claim] : claims) {
    w.StartObject();
    w.Key("name");
    w.String(pod_claim.data(), static_cast<rapidjson::SizeType>(pod_claim.size()));
    w.Key("resourceClaimName");
    w.String(claim.data(), static_cast<rapidjson::SizeType>(claim.size()));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

std::vector<std::string> PodClaimKeys(const api::Object& obj) {
  std::vector<std::string> keys;
  const api::Pod* pod = api::As<api::Pod>(obj);
  if (!pod) return keys;
  for (const api::PodResourceClaim& pc : pod->spec.resourceClaims) {
    PodClaimName n = ClaimNameFor(*pod, pc);
    if (n.kind == PodClaimName::Kind::kName) {
      keys.push_back(pod->metadata.namespace_ + "/" + n.name);
    }
  }
  return keys;
}

std::vector<std::string> ClaimOwnerPodUids(const api::Object& obj) {
  std::vector<std::string> uids;
  const api::ResourceClaim* claim = api::As<api::ResourceClaim>(obj);
  if (!claim) return uids;
  for (const api::OwnerReference& owner : claim->metadata.ownerReferences) {
    if (IsPodController(owner) || IsReservationController(owner)) uids.push_back(owner.uid);
  }
  return uids;
}

}  // namespace allot::controllers

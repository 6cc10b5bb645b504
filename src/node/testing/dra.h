// Shared pieces of the DRA tests of node/: claims and pods built from JSON, an in-memory
// ClaimSource and a recording DraKubeletPlugin.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "api/core/types.h"
#include "api/resource/types.h"
#include "node/dra/claims.h"
#include "node/dra/plugin.h"
#include "testing/objects.h"

namespace allot::node {

// A claim "default/<name>" (uid "uid-<name>"), allocated from `driver` pool `pool` device
// `device` when `device` is not empty, and reserved for the pods whose uids are given.
// `owner_uid`: a controlling owner reference to that pod.
inline api::ObjectPtr MakeClaim(const std::string& name, const std::string& device = {},
                                const std::vector<std::string>& reserved_for = {},
                                const std::string& owner_uid = {},
                                const std::string& driver = "gpu.example.com",
                                const std::string& pool = "n-0") {
  std::string json = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{)"
                     R"("name":")" +
                     name + R"(","namespace":"default","uid":"uid-)" + name + "\"";
  if (!owner_uid.empty()) {
    json += R"(,"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":")" +
            owner_uid + R"(","controller":true}])";
  }
  json += R"(},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":")"
          R"(gpu.example.com"}}]}},"status":{)";
  if (!device.empty()) {
    json += R"("allocation":{"devices":{"results":[{"request":"gpu","driver":")" + driver +
            R"(","pool":")" + pool + R"(","device":")" + device + R"("}]}})";
  }
  std::string sep = device.empty() ? "" : ",";
  if (!reserved_for.empty()) {
    json += sep + R"("reservedFor":[)";
    for (size_t i = 0; i < reserved_for.size(); ++i) {
      json += std::string(i ? "," : "") + R"({"resource":"pods","name":"p","uid":")" +
              reserved_for[i] + "\"}";
    }
    json += "]";
  }
  json += "}}";
  return api::ObjectPtr(testing::ObjectFromJson(json));
}

// A pod "default/p" with uid `uid`; `claims` is spliced into spec.resourceClaims and `statuses`
// into status.resourceClaimStatuses (JSON array contents).
inline api::ObjectPtr MakeDraPod(const std::string& uid, const std::string& claims,
                                 const std::string& statuses = {}) {
  std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",)"
                     R"("namespace":"default","uid":")" +
                     uid +
                     R"("},"spec":{"nodeName":"n-0","containers":[{"name":"c","image":"i"}],)"
                     R"("resourceClaims":[)" +
                     claims + "]}";
  if (!statuses.empty()) json += R"(,"status":{"resourceClaimStatuses":[)" + statuses + "]}";
  json += "}";
  return api::ObjectPtr(testing::ObjectFromJson(json));
}

inline const api::Pod& AsPod(const api::ObjectPtr& o) { return *api::As<api::Pod>(*o); }
inline const api::ResourceClaim& AsClaim(const api::ObjectPtr& o) {
  return *api::As<api::ResourceClaim>(*o);
}

class MapClaimSource final : public ClaimSource {
 public:
  void Put(const api::ObjectPtr& claim) {
    std::lock_guard<std::mutex> lock(mu_);
    claims_[claim->metadata.namespace_ + "/" + claim->metadata.name] = claim;
  }
  api::ObjectPtr GetClaim(std::string_view ns, std::string_view name) const override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = claims_.find(std::string(ns) + "/" + std::string(name));
    return it == claims_.end() ? nullptr : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, api::ObjectPtr> claims_;
};

// Records calls; fails PrepareResources while `fail` is set, and with `need_device_status` while
// the claim has no status.devices entry (a driver that has not reported its device ready).
class FakePlugin final : public DraKubeletPlugin {
 public:
  explicit FakePlugin(std::string driver = "gpu.example.com") : driver_(std::move(driver)) {}
  std::string_view driver_name() const override { return driver_; }
  Status PrepareResources(const api::ResourceClaim& claim, std::string_view node) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail) return Status(StatusCode::kInternalError, "injected");
    if (need_device_status && claim.status.devices.empty()) {
      return Status(StatusCode::kServiceUnavailable, "device not reported ready");
    }
    prepared.push_back(claim.metadata.name + "@" + std::string(node));
    return Status::Ok();
  }
  Status UnprepareResources(const ClaimRef& claim, std::string_view node) override {
    std::lock_guard<std::mutex> lock(mu_);
    unprepared.push_back(claim.name + "@" + std::string(node));
    return Status::Ok();
  }
  std::vector<std::string> Prepared() {
    std::lock_guard<std::mutex> lock(mu_);
    return prepared;
  }
  std::vector<std::string> Unprepared() {
    std::lock_guard<std::mutex> lock(mu_);
    return unprepared;
  }

  bool fail = false;                // set before use
  bool need_device_status = false;  // set before use

 private:
  std::string driver_;
  std::mutex mu_;
  std::vector<std::string> prepared;
  std::vector<std::string> unprepared;
};

}  // namespace allot::node

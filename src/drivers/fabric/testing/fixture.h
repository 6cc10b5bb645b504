// Shared by the FabricDriver tests: an in-process store with two nodes, a claims informer the
// driver shares, a FakeClock, and claims allocated the way the scheduler writes them.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/resource/node_pinning.h"
#include "api/resource/types.h"
#include "client/informer.h"
#include "client/inprocess/inprocess_client.h"
#include "client/testing/forwarding_client.h"
#include "common/time.h"
#include "drivers/device_status.h"
#include "drivers/fabric/devices.h"
#include "drivers/fabric/driver.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::drivers {

// Forwards to an InProcessClient; `interfere` times, a claim status update is preceded by an
// unrelated write to the same claim, so the update meets a 409 Conflict.
class InterferingClient final : public client::ForwardingClient {
 public:
  explicit InterferingClient(client::InProcessClient& inner) : ForwardingClient(inner) {}
  std::atomic<int> interfere{0};

  void UpdateStatusAsync(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj,
                         client::Callback<api::ObjectPtr> done) override {
    if (interfere > 0) {
      --interfere;
      Result<api::ObjectPtr> cur = inner().Get(r, obj->metadata.namespace_, obj->metadata.name);
      if (cur.ok()) {
        std::unique_ptr<api::Object> other = (*cur)->Clone();
        other->metadata.annotations["interfered"] = "yes";
        EXPECT_TRUE(inner().Update(r, std::move(other)).ok());
      }
    }
    inner().UpdateStatusAsync(r, std::move(obj), std::move(done));
  }
};

class FabricDriverTest : public ::testing::Test {
 protected:
  static constexpr const char* kDriver = "gpu.example.com";
  static constexpr const char* kPool = "fabric-a100-80gb";
  static constexpr const char* kSlice = "fabric-a100-80gb-gpu-example-com";

  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    for (const char* n : {"n-0", "n-1"}) {
      ASSERT_TRUE(
          store_
              .Create(testing::Resource("", "nodes"),
                      testing::ObjectFromJson(
                          std::string(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")") +
                          n + R"("}})"))
              .ok());
    }
    claims_ = std::make_unique<client::Informer>(client_, Claims());
    ASSERT_TRUE(claims_->Start().ok());
    ASSERT_TRUE(claims_->WaitForSync(std::chrono::seconds(10)));
  }
  void TearDown() override {
    driver_.reset();
    claims_.reset();
    store_.Close();
  }

  static const api::ResourceInfo& Claims() {
    return testing::Resource("resource.k8s.io", "resourceclaims");
  }
  static const api::ResourceInfo& Slices() {
    return testing::Resource("resource.k8s.io", "resourceslices");
  }

  // One model, a100-80gb, with `count` devices; latencies 2 s / 1 s, no failures.
  static FabricConfig Config(int64_t count = 2) {
    FabricConfig c;
    FabricPoolConfig pool;
    pool.model = "a100-80gb";
    pool.count = count;
    pool.attributes["productName"] = {.stringValue = "NVIDIA A100 80GB"};
    pool.capacity["memory"] = api::Quantity::Parse("80Gi").value();
    c.pools.push_back(pool);
    return c;
  }

  void StartDriver(FabricConfig config, client::Client* client = nullptr) {
    driver_ = std::make_unique<FabricDriver>(client ? *client : client_, clock_, std::move(config),
                                             FabricDriverOptions{.shared_claims = claims_.get()});
    ASSERT_TRUE(driver_->Start().ok());
  }

  void Advance(std::chrono::microseconds d) { clock_.Advance(d); }
  void Tick() { driver_->Tick(); }

  // --- claims, as the scheduler writes them ---

  // A claim requesting `count` devices of class gpu.example.com.
  void CreateClaim(const std::string& name, int count = 1) {
    std::string json =
        R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"namespace":)"
        R"("default","name":")" +
        name +
        R"("},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":)"
        R"("gpu.example.com","count":)" +
        std::to_string(count) + "}}]}}}";
    Result<api::ObjectPtr> r = client_.Create(Claims(), testing::ObjectFromJson(json));
    ASSERT_TRUE(r.ok()) << r.status().message();
    AwaitCache(name, (*r)->metadata.resourceVersion);
  }

  // The result for fabric device `device` (as the allocator copies it from a free device).
  static api::DeviceRequestAllocationResult FabricResult(const std::string& device) {
    api::DeviceRequestAllocationResult r{
        .request = "gpu", .driver = kDriver, .pool = kPool, .device = device};
    r.rare.edit().bindingConditions = {"kubernetes.io/is-attached"};
    r.rare.edit().bindingFailureConditions = {"kubernetes.io/attach-failed"};
    return r;
  }

  // Writes the claim's allocation: `results` pinned to `node` ("": no nodeSelector).
  void Allocate(const std::string& name, std::vector<api::DeviceRequestAllocationResult> results,
                const std::string& node = "n-0") {
    UpdateClaimStatus(name, [&](api::ResourceClaimStatus& s) {
      s.allocation.emplace();
      s.allocation->devices.results = results;
      if (!node.empty()) s.allocation->nodeSelector = api::PinnedTo(node);
      s.allocation->allocationTimestamp = clock_.Now().TruncatedToSeconds();
    });
  }

  // Clears the allocation (and status.devices with it), as the scheduler or the resourceclaim
  // controller do.
  void Deallocate(const std::string& name) {
    UpdateClaimStatus(name, [](api::ResourceClaimStatus& s) { s = {}; });
  }

  void DeleteClaim(const std::string& name) {
    ASSERT_TRUE(client_.Delete(Claims(), "default", name).ok());
    AwaitCache(name, "");
  }

  template <class Fn>
  void UpdateClaimStatus(const std::string& name, Fn fn) {
    Result<api::ObjectPtr> cur = client_.Get(Claims(), "default", name);
    ASSERT_TRUE(cur.ok());
    std::unique_ptr<api::Object> obj = (*cur)->Clone();
    fn(api::As<api::ResourceClaim>(*obj)->status);
    Result<api::ObjectPtr> r = client_.UpdateStatus(Claims(), std::move(obj));
    ASSERT_TRUE(r.ok()) << r.status().message();
    AwaitCache(name, (*r)->metadata.resourceVersion);
  }

  // Waits until the informer shows the claim at `rv` or later ("" for gone), so the next Tick
  // sees it. (Waiting for the informer's event delivery, not for a timer.)
  void AwaitCache(const std::string& name, const std::string& rv) {
    ASSERT_TRUE(testing::WaitUntil([&] {
      api::ObjectPtr o = claims_->Get("default", name);
      return rv.empty() ? o == nullptr
                        : (o && std::stoull(o->metadata.resourceVersion) >= std::stoull(rv));
    })) << "informer never showed "
        << name;
  }

  // --- inspecting the outcome ---

  api::ResourceClaim GetClaim(const std::string& name) {
    Result<api::ObjectPtr> r = client_.Get(Claims(), "default", name);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *api::As<api::ResourceClaim>(**r) : api::ResourceClaim();
  }

  // The status.devices entry for a fabric device of the claim, or null.
  std::optional<api::AllocatedDeviceStatus> Entry(const std::string& claim,
                                                  const std::string& device) {
    api::ResourceClaim c = GetClaim(claim);
    const api::AllocatedDeviceStatus* e = FindDeviceStatus(c.status, FabricResult(device));
    return e ? std::optional<api::AllocatedDeviceStatus>(*e) : std::nullopt;
  }

  std::optional<api::ResourceSlice> GetSlice(const std::string& name = kSlice) {
    Result<api::ObjectPtr> r = client_.Get(Slices(), "", name);
    if (!r.ok()) return std::nullopt;
    return *api::As<api::ResourceSlice>(**r);
  }

  // The published device, or null when the slice or the device is missing.
  std::optional<api::Device> SliceDevice(const std::string& device) {
    std::optional<api::ResourceSlice> s = GetSlice();
    if (!s) return std::nullopt;
    for (const api::Device& d : s->spec.devices) {
      if (d.name == device) return d;
    }
    return std::nullopt;
  }

  FabricDriver::DeviceInfo Info(const std::string& device) {
    for (const FabricDriver::DeviceInfo& d : driver_->Devices()) {
      if (d.name == device) return d;
    }
    ADD_FAILURE() << "no device " << device;
    return {};
  }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  client::InProcessClient client_{store_, clock_};
  std::unique_ptr<client::Informer> claims_;
  std::unique_ptr<FabricDriver> driver_;
};

}  // namespace allot::drivers

// A harness that runs the allocator the way the scheduler does, for DRA tests (header-only).
//
//   AllocatorHarness h;
//   h.Slice(SliceBuilder("s", "gpu.example.com", "n1").Node("n1").Devices("gpu", 4));
//   h.Class(ClassBuilder("gpu").Selector("driver=gpu.example.com"));
//   auto out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 2).Build()}, MakeNode("n1"));
//   EXPECT_EQ(out.result, Allocator::Outcome::Result::kAllocated);
//   EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-0", "gpu-1"));
#pragma once

#include <gmock/gmock.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dra/allocated_state.h"
#include "dra/allocator.h"
#include "dra/inventory.h"
#include "dra/testing/builders.h"
#include "dra/testing/fake_cel.h"

namespace allot::dra::testing {

class AllocatorHarness {
 public:
  AllocatorHarness() { options.compile = cel.AsSelectorCompiler(); }

  AllocatorHarness& Slice(const SliceBuilder& s) {
    slices_.push_back(s.Build());
    inventory_.reset();
    return *this;
  }
  AllocatorHarness& Class(const ClassBuilder& c) {
    auto cls = c.Build();
    classes_[cls->metadata.name] = cls;
    return *this;
  }
  std::shared_ptr<const Inventory> inventory() {
    if (inventory_ == nullptr) {
      inventory_ = Inventory::Build(slices_);
      in_use_.Rebase(inventory_);
    }
    return inventory_;
  }
  // Records an allocation as in use (as the scheduler's cache would).
  void Use(const api::AllocationResult& allocation) {
    inventory();
    in_use_.Add(allocation);
  }
  // A result naming one device, for Use().
  static api::AllocationResult Taken(std::string driver, std::string pool, std::string device) {
    api::AllocationResult a;
    api::DeviceRequestAllocationResult& r = a.devices.results.emplace_back();
    r.request = "r";
    r.driver = std::move(driver);
    r.pool = std::move(pool);
    r.device = std::move(device);
    return a;
  }
  AllocatedState& in_use() {
    inventory();
    return in_use_;
  }

  Result<std::unique_ptr<Allocator>> Create(
      std::vector<std::shared_ptr<const api::ResourceClaim>> claims) {
    return Allocator::Create(
        options, inventory(), std::move(claims),
        [this](std::string_view name) -> std::shared_ptr<const api::DeviceClass> {
          auto it = classes_.find(std::string(name));
          return it == classes_.end() ? nullptr : it->second;
        });
  }
  // Create + Allocate; a Create error becomes kError with the status message as reason.
  Allocator::Outcome Allocate(std::vector<std::shared_ptr<const api::ResourceClaim>> claims,
                              const api::Node& node) {
    auto alloc = Create(std::move(claims));
    if (!alloc.ok()) {
      Allocator::Outcome out;
      out.result = Allocator::Outcome::Result::kError;
      out.reason = "create: " + alloc.status().message();
      return out;
    }
    return (*alloc)->Allocate(node, in_use());
  }

  AllocatorOptions options;
  FakeCompiler cel;

 private:
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices_;
  std::map<std::string, std::shared_ptr<const api::DeviceClass>> classes_;
  std::shared_ptr<const Inventory> inventory_;
  AllocatedState in_use_;
};

// "device" of each result, in order.
inline std::vector<std::string> DeviceNames(const api::AllocationResult& a) {
  std::vector<std::string> out;
  for (const auto& r : a.devices.results) out.push_back(r.device);
  return out;
}
// "request:device" of each result, in order.
inline std::vector<std::string> RequestDevices(const api::AllocationResult& a) {
  std::vector<std::string> out;
  for (const auto& r : a.devices.results) out.push_back(r.request + ":" + r.device);
  return out;
}

// The names every allocator test uses, in one place: `using namespace testing::vocabulary;`.
namespace vocabulary {
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Le;
using testing::AllocatorHarness;
using testing::ClaimBuilder;
using testing::ClassBuilder;
using testing::DeviceBuilder;
using testing::DeviceNames;
using testing::LabelSelector;
using testing::MakeNode;
using testing::RequestDevices;
using testing::SliceBuilder;
using testing::ValidRange;
using testing::ValidValues;
using Result = Allocator::Outcome::Result;
inline constexpr char kDriver[] = "gpu.example.com";
}  // namespace vocabulary

}  // namespace allot::dra::testing

// Codec round trips, defaults, registration and table rows for the resource.k8s.io/v1 kinds.
#include "api/resource/types.h"

#include <gtest/gtest.h>

#include "api/codec/codec.h"
#include "api/machinery/resources.h"
#include "api/machinery/scheme.h"
#include "api/protobuf.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::ExpectRoundTrip;

// Decodes `json` (kind looked up in the scheme, strict), checks that encoding gives back the
// same text and that decoding the encoding gives an equal object.
const char kDeviceClass[] =
    R"({"kind":"DeviceClass","apiVersion":"resource.k8s.io/v1",)"
    R"("metadata":{"name":"gpu.example.com","uid":"6b1e3a52-3f3b-4a8e-9d55-1f1f1f1f1f1f",)"
    R"("resourceVersion":"7","generation":2,"creationTimestamp":"2025-01-01T00:00:00Z",)"
    R"("labels":{"vendor":"example"}},)"
    R"("spec":{"selectors":[{"cel":{"expression":"device.driver == 'gpu.example.com'"}}],)"
    R"("config":[{"opaque":{"driver":"gpu.example.com",)"
    R"("parameters":{"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig",)"
    R"("sharing":{"strategy":"TimeSlicing"}}}}],)"
    R"("suitableNodes":{"nodeSelectorTerms":[{"matchExpressions":)"
    R"([{"key":"example.com/rack","operator":"In","values":["r1","r2"]}]}]},)"
    R"("extendedResourceName":"example.com/gpu"}})";

TEST(DraCodecTest, DeviceClassEveryField) {
  auto obj = ExpectRoundTrip(kDeviceClass);
  const auto* dc = As<DeviceClass>(*obj);
  ASSERT_NE(dc, nullptr);
  ASSERT_EQ(dc->spec.selectors.size(), 1u);
  EXPECT_EQ(dc->spec.selectors[0].cel->expression, "device.driver == 'gpu.example.com'");
  ASSERT_TRUE(dc->spec.config[0].opaque);
  EXPECT_EQ(dc->spec.config[0].opaque->parameters.json,
            R"({"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig",)"
            R"("sharing":{"strategy":"TimeSlicing"}})");
  ASSERT_TRUE(dc->spec.suitableNodes);
  EXPECT_EQ(dc->spec.suitableNodes->nodeSelectorTerms[0].matchExpressions[0].values.size(), 2u);
  EXPECT_EQ(dc->spec.extendedResourceName, "example.com/gpu");
}

const char kResourceClaim[] =
    R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1",)"
    R"("metadata":{"name":"pod-a-gpu-x7k2p","namespace":"team-a",)"
    R"("finalizers":["resource.kubernetes.io/delete-protection"]},)"
    R"("spec":{"devices":{"requests":[)"
    R"({"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",)"
    R"("selectors":[{"cel":{"expression":)"
    R"("device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"}}],)"
    R"("allocationMode":"ExactCount","count":2,"adminAccess":false,)"
    R"("tolerations":[{"key":"example.com/unhealthy","operator":"Equal","value":"true",)"
    R"("effect":"NoSchedule","tolerationSeconds":30}],)"
    R"("capacity":{"requests":{"memory":"4Gi"}}}},)"
    R"({"name":"nic","firstAvailable":[)"
    R"({"name":"fast","deviceClassName":"nic.example.com",)"
    R"("selectors":[{"cel":{"expression":"device.attributes['nic.example.com'].speed >= 100"}}],)"
    R"("allocationMode":"All","tolerations":[{"operator":"Exists"}],)"
    R"("capacity":{"requests":{"bandwidth":"10G"}}},)"
    R"({"name":"slow",)"
    R"("deviceClassName":"nic.example.com","allocationMode":"ExactCount","count":1}]}],)"
    R"("constraints":[{"requests":["gpu","nic/fast"],"matchAttribute":"gpu.example.com/numa"},)"
    R"({"distinctAttribute":"nic.example.com/pf"}],)"
    R"("config":[{"requests":["gpu"],)"
    R"("opaque":{"driver":"gpu.example.com","parameters":{"mode":"shared"}}}]},)"
    R"("controllerName":"ctrl.example.com","allocationMode":"WaitForFirstConsumer"},)"
    R"("status":{"allocation":{"devices":{"results":[)"
    R"({"request":"gpu","driver":"gpu.example.com","pool":"node-1","device":"gpu-0",)"
    R"("adminAccess":false,"tolerations":[{"key":"example.com/unhealthy","operator":"Exists"}],)"
    R"("bindingConditions":["example.com/attached"],)"
    R"("bindingFailureConditions":["example.com/failed"],)"
    R"("shareID":"0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9","consumedCapacity":{"memory":"4Gi"}}],)"
    R"("config":[{"source":"FromClass","requests":["gpu"],)"
    R"("opaque":{"driver":"gpu.example.com","parameters":{"mode":"shared"}}}]},)"
    R"("nodeSelector":{"nodeSelectorTerms":[{"matchFields":)"
    R"([{"key":"metadata.name","operator":"In","values":["node-1"]}]}]},)"
    R"("controllerName":"ctrl.example.com","allocationTimestamp":"2025-01-01T00:00:01Z"},)"
    R"("reservedFor":[{"resource":"pods",)"
    R"("name":"pod-a","uid":"11111111-2222-3333-4444-555555555555"},)"
    R"({"apiGroup":"example.com","resource":"widgets","name":"w","uid":"w-uid"}],)"
    R"("deallocationRequested":true,)"
    R"("devices":[{"driver":"gpu.example.com","pool":"node-1","device":"gpu-0",)"
    R"("shareID":"0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9",)"
    R"("conditions":[{"type":"Ready","status":"True","observedGeneration":1,)"
    R"("lastTransitionTime":"2025-01-01T00:00:02Z","reason":"Prepared","message":"device ready"}],)"
    R"("data":{"healthy":true},"networkData":{"interfaceName":"eth1","ips":["10.0.0.5/24"],)"
    R"("hardwareAddress":"aa:bb:cc:dd:ee:ff"}}]}})";

TEST(DraCodecTest, ResourceClaimEveryField) {
  auto obj = ExpectRoundTrip(kResourceClaim);
  const auto* claim = As<ResourceClaim>(*obj);
  ASSERT_NE(claim, nullptr);
  const DeviceClaim& devices = claim->spec.devices;
  ASSERT_EQ(devices.requests.size(), 2u);
  ASSERT_TRUE(devices.requests[0].exactly);
  EXPECT_EQ(devices.requests[0].exactly->count, 2);
  EXPECT_EQ(devices.requests[0].exactly->rare->adminAccess, false);
  EXPECT_EQ(devices.requests[0].exactly->rare->tolerations[0].tolerationSeconds, 30);
  EXPECT_EQ(devices.requests[0].exactly->rare->capacity->requests.at("memory").ToString(), "4Gi");
  ASSERT_EQ(devices.requests[1].firstAvailable.size(), 2u);
  EXPECT_EQ(devices.requests[1].firstAvailable[0].allocationMode, "All");
  EXPECT_EQ(devices.constraints[1].distinctAttribute, "nic.example.com/pf");
  EXPECT_EQ(claim->spec.controllerName, "ctrl.example.com");
  EXPECT_EQ(claim->spec.allocationMode, "WaitForFirstConsumer");
  const ResourceClaimStatus& status = claim->status;
  ASSERT_TRUE(status.allocation);
  const DeviceRequestAllocationResult& result = status.allocation->devices.results[0];
  EXPECT_EQ(result.rare->bindingConditions, std::vector<std::string>{"example.com/attached"});
  EXPECT_EQ(result.rare->shareID, "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9");
  EXPECT_EQ(status.allocation->devices.config[0].source, "FromClass");
  EXPECT_EQ(status.allocation->controllerName, "ctrl.example.com");
  EXPECT_EQ(status.allocation->allocationTimestamp, Time::FromUnixSeconds(1735689601));
  EXPECT_EQ(status.reservedFor[1].apiGroup, "example.com");
  EXPECT_TRUE(status.deallocationRequested);
  ASSERT_EQ(status.devices.size(), 1u);
  EXPECT_EQ(status.devices[0].conditions[0].reason, "Prepared");
  EXPECT_EQ(status.devices[0].data.json, R"({"healthy":true})");
  EXPECT_EQ(status.devices[0].networkData->ips, std::vector<std::string>{"10.0.0.5/24"});
}

const char kResourceClaimTemplate[] =
    R"({"kind":"ResourceClaimTemplate","apiVersion":"resource.k8s.io/v1",)"
    R"("metadata":{"name":"gpu-template","namespace":"team-a"},)"
    R"("spec":{"metadata":{"labels":{"app":"trainer"},"annotations":{"example.com/note":"x"}},)"
    R"("spec":{"devices":{"requests":[{"name":"gpu","exactly":)"
    R"({"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}}]},)"
    R"("controllerName":"ctrl.example.com","allocationMode":"Immediate"}}})";

TEST(DraCodecTest, ResourceClaimTemplateEveryField) {
  auto obj = ExpectRoundTrip(kResourceClaimTemplate);
  const auto* tmpl = As<ResourceClaimTemplate>(*obj);
  ASSERT_NE(tmpl, nullptr);
  EXPECT_EQ(tmpl->spec.metadata.labels.at("app"), "trainer");
  EXPECT_EQ(tmpl->spec.metadata.annotations.at("example.com/note"), "x");
  EXPECT_EQ(tmpl->spec.spec.devices.requests[0].exactly->deviceClassName, "gpu.example.com");
  EXPECT_EQ(tmpl->spec.spec.allocationMode, "Immediate");
}

// Every field at once; not a valid slice (it sets all four node-scoping fields).
const char kResourceSlice[] =
    R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1",)"
    R"("metadata":{"name":"node-1-gpu.example.com-abcde"},)"
    R"("spec":{"driver":"gpu.example.com",)"
    R"("pool":{"name":"node-1","generation":3,"resourceSliceCount":1},)"
    R"("nodeName":"node-1","nodeSelector":{"nodeSelectorTerms":[{"matchExpressions":)"
    R"([{"key":"example.com/rack","operator":"Exists"}]}]},"allNodes":false,)"
    R"("devices":[{"name":"gpu-0","attributes":{"driverVersion":{"version":"1.0.0"},)"
    R"("index":{"int":0},"model":{"string":"LATEST-GPU-MODEL"},"partitionable":{"bool":true}},)"
    R"("capacity":{"memory":{"value":"80Gi","requestPolicy":{"default":"1Gi",)"
    R"("validValues":["1Gi","2Gi"],"validRange":{"min":"1Gi","max":"8Gi","step":"1Gi"}}}},)"
    R"("consumesCounters":[{"counterSet":"gpu-0-counters",)"
    R"("counters":{"memory":{"value":"80Gi"}}}],)"
    R"("nodeName":"node-1","nodeSelector":{"nodeSelectorTerms":[{"matchFields":)"
    R"([{"key":"metadata.name","operator":"In","values":["node-1"]}]}]},"allNodes":true,)"
    R"("taints":[{"key":"example.com/unhealthy","value":"true","effect":"NoExecute",)"
    R"("timeAdded":"2025-01-01T00:00:00Z"}],"bindsToNode":true,)"
    R"("bindingConditions":["example.com/attached"],)"
    R"("bindingFailureConditions":["example.com/failed"],)"
    R"("allowMultipleAllocations":true}],)"
    R"("perDeviceNodeSelection":true,)"
    R"("sharedCounters":[{"name":"gpu-0-counters","counters":{"memory":{"value":"80Gi"}}}]}})";

TEST(DraCodecTest, ResourceSliceEveryField) {
  auto obj = ExpectRoundTrip(kResourceSlice);
  const auto* slice = As<ResourceSlice>(*obj);
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->spec.pool.generation, 3);
  EXPECT_EQ(slice->spec.nodeName, "node-1");
  EXPECT_EQ(slice->spec.allNodes, false);
  EXPECT_EQ(slice->spec.perDeviceNodeSelection, true);
  const Device& d = slice->spec.devices[0];
  EXPECT_EQ(d.attributes.at("index").intValue, 0);
  EXPECT_EQ(d.attributes.at("partitionable").boolValue, true);
  EXPECT_EQ(d.attributes.at("model").stringValue, "LATEST-GPU-MODEL");
  EXPECT_EQ(d.attributes.at("driverVersion").versionValue, "1.0.0");
  const CapacityRequestPolicy& policy = *d.capacity.at("memory").requestPolicy;
  EXPECT_EQ(policy.defaultValue->ToString(), "1Gi");
  EXPECT_EQ(policy.validValues.size(), 2u);
  EXPECT_EQ(policy.validRange->step->ToString(), "1Gi");
  EXPECT_EQ(d.consumesCounters[0].counters.at("memory").value.ToString(), "80Gi");
  EXPECT_EQ(d.taints[0].effect, "NoExecute");
  EXPECT_EQ(d.bindsToNode, true);
  EXPECT_EQ(d.allowMultipleAllocations, true);
  EXPECT_EQ(slice->spec.sharedCounters[0].name, "gpu-0-counters");
}

TEST(DraCodecTest, OptionalZeroValuesSurvive) {
  // Unset and zero stay distinct: nodeName "" and allNodes false are kept, absent ones omitted.
  auto obj = ExpectRoundTrip(
      R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":{"name":"s"},)"
      R"("spec":{"driver":"d.example.com",)"
      R"("pool":{"name":"p","generation":0,"resourceSliceCount":1},)"
      R"("nodeName":"","allNodes":false}})");
  const auto* slice = As<ResourceSlice>(*obj);
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->spec.nodeName, "");
  EXPECT_FALSE(slice->spec.nodeSelector);
}

TEST(DraCodecTest, StrictDecodingRejectsUnknownFields) {
  DecodeOptions opts;
  opts.strict = true;
  auto r = DecodeJson(
      R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1","metadata":{"name":"c"},)"
      R"("spec":{"devices":{"requests":[{"name":"r","deviceClassName":"x"}]}}})",
      opts);
  ASSERT_FALSE(r.ok());
  // The v1beta1 flat request shape is not v1.
  EXPECT_EQ(r.status().message(),
            "strict decoding error: unknown field \"spec.devices.requests[0].deviceClassName\"");
}

TEST(DraDefaultsTest, RequestDefaults) {
  ResourceClaimSpec spec;
  DeviceRequest r;
  r.name = "gpu";
  r.exactly.emplace();
  r.exactly->deviceClassName = "gpu.example.com";
  r.exactly->rare.edit().tolerations.push_back({.key = "k"});
  spec.devices.requests.push_back(r);
  DeviceRequest alt;
  alt.name = "alt";
  alt.firstAvailable.push_back({.name = "a", .deviceClassName = "c", .allocationMode = "All"});
  spec.devices.requests.push_back(alt);
  SetResourceClaimSpecDefaults(spec);
  EXPECT_EQ(spec.devices.requests[0].exactly->allocationMode, "ExactCount");
  EXPECT_EQ(spec.devices.requests[0].exactly->count, 1);
  EXPECT_EQ(spec.devices.requests[0].exactly->rare->tolerations[0].operator_, "Equal");
  EXPECT_EQ(spec.devices.requests[1].firstAvailable[0].allocationMode, "All");
  EXPECT_EQ(spec.devices.requests[1].firstAvailable[0].count, 0);
  // Without controllerName the claim-level mode stays unset (plain v1 objects are unchanged).
  EXPECT_EQ(spec.allocationMode, "");
  EXPECT_EQ(EffectiveClaimAllocationMode(spec), "WaitForFirstConsumer");
  spec.controllerName = "ctrl.example.com";
  SetResourceClaimSpecDefaults(spec);
  EXPECT_EQ(spec.allocationMode, "WaitForFirstConsumer");
}

TEST(DraResourcesTest, Registration) {
  const ResourceRegistry& reg = ResourceRegistry::Default();
  const ResourceInfo* classes = reg.Find("resource.k8s.io", "v1", "deviceclasses");
  ASSERT_NE(classes, nullptr);
  EXPECT_FALSE(classes->namespaced);
  EXPECT_FALSE(classes->status_subresource);
  EXPECT_EQ(classes->type, &DeviceClass::Type());
  const ResourceInfo* claims = reg.Find("resource.k8s.io", "v1", "resourceclaims");
  ASSERT_NE(claims, nullptr);
  EXPECT_TRUE(claims->namespaced);
  EXPECT_TRUE(claims->status_subresource);
  EXPECT_EQ(claims->QualifiedResource(), "resourceclaims.resource.k8s.io");
  const ResourceInfo* templates = reg.Find("resource.k8s.io", "v1", "resourceclaimtemplates");
  ASSERT_NE(templates, nullptr);
  EXPECT_TRUE(templates->namespaced);
  EXPECT_FALSE(templates->status_subresource);
  const ResourceInfo* slices = reg.Find("resource.k8s.io", "v1", "resourceslices");
  ASSERT_NE(slices, nullptr);
  EXPECT_FALSE(slices->namespaced);
  EXPECT_EQ(slices->field_labels, (std::vector<std::string>{"spec.nodeName", "spec.driver"}));
  EXPECT_TRUE(slices->short_names.empty());
  EXPECT_NE(Scheme::Default().Find("resource.k8s.io/v1", "ResourceSlice"), nullptr);
  EXPECT_EQ(reg.FindByKind("resource.k8s.io/v1", "ResourceClaim"), claims);
}

TEST(DraResourcesTest, ResourceSliceFieldSelectors) {
  const ResourceInfo* slices =
      ResourceRegistry::Default().Find("resource.k8s.io", "v1", "resourceslices");
  ASSERT_NE(slices, nullptr);
  ResourceSlice slice;
  slice.spec.driver = "gpu.example.com";
  EXPECT_EQ(slices->field_value(slice, "spec.nodeName"), "");
  slice.spec.nodeName = "node-1";
  EXPECT_EQ(slices->field_value(slice, "spec.nodeName"), "node-1");
  EXPECT_EQ(slices->field_value(slice, "spec.driver"), "gpu.example.com");
  EXPECT_EQ(slices->field_value(slice, "spec.pool.name"), std::nullopt);
}

std::vector<std::string> ColumnNames(const ResourceInfo& r) {
  std::vector<std::string> out;
  for (const TableColumn& c : r.columns) out.push_back(c.name);
  return out;
}

TEST(DraResourcesTest, TableRows) {
  const ResourceRegistry& reg = ResourceRegistry::Default();
  Time created = Time::FromUnixSeconds(1700000000);
  Time now = Time::FromUnixSeconds(1700000000 + 3 * 60 + 12);

  const ResourceInfo* claims = reg.Find("resource.k8s.io", "v1", "resourceclaims");
  EXPECT_EQ(ColumnNames(*claims), (std::vector<std::string>{"State", "Age"}));
  ResourceClaim claim;
  claim.metadata.creationTimestamp = created;
  EXPECT_EQ(claims->row(claim, now), (std::vector<TableCell>{"pending", "3m12s"}));
  claim.status.allocation.emplace();
  EXPECT_EQ(claims->row(claim, now), (std::vector<TableCell>{"allocated", "3m12s"}));
  claim.status.reservedFor.push_back({.resource = "pods", .name = "p", .uid = "u"});
  EXPECT_EQ(claims->row(claim, now), (std::vector<TableCell>{"allocated,reserved", "3m12s"}));
  claim.metadata.rare.edit().deletionTimestamp = now;
  EXPECT_EQ(claims->row(claim, now),
            (std::vector<TableCell>{"deleted,allocated,reserved", "3m12s"}));
  claim.status.allocation.reset();
  claim.status.reservedFor.clear();
  EXPECT_EQ(claims->row(claim, now), (std::vector<TableCell>{"deleted", "3m12s"}));

  const ResourceInfo* slices = reg.Find("resource.k8s.io", "v1", "resourceslices");
  EXPECT_EQ(ColumnNames(*slices), (std::vector<std::string>{"Node", "Driver", "Pool", "Age"}));
  ResourceSlice slice;
  slice.metadata.creationTimestamp = created;
  slice.spec.driver = "gpu.example.com";
  slice.spec.pool.name = "fabric";
  EXPECT_EQ(slices->row(slice, now),
            (std::vector<TableCell>{"", "gpu.example.com", "fabric", "3m12s"}));
  slice.spec.nodeName = "node-1";
  EXPECT_EQ(slices->row(slice, now),
            (std::vector<TableCell>{"node-1", "gpu.example.com", "fabric", "3m12s"}));

  for (const char* plural : {"deviceclasses", "resourceclaimtemplates"}) {
    const ResourceInfo* r = reg.Find("resource.k8s.io", "v1", plural);
    ASSERT_NE(r, nullptr) << plural;
    EXPECT_EQ(ColumnNames(*r), std::vector<std::string>{"Age"}) << plural;
    DeviceClass dc;
    dc.metadata.creationTimestamp = created;
    EXPECT_EQ(r->row(dc, now), std::vector<TableCell>{"3m12s"}) << plural;
  }
}

// The rarely set fields of a request and of an allocated device live out of line
// (api/machinery/rare.h): a plain claim, decoded from either codec and defaulted, allocates
// none of them, and one that sets them keeps them through protobuf.
TEST(DraCodecTest, AClaimAllocatesRareFieldsOnlyWhenSet) {
  constexpr std::string_view kPlain =
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
      R"("metadata":{"name":"c","namespace":"default"},)"
      R"("spec":{"devices":{"requests":[{"name":"gpu","exactly":{)"
      R"("deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}}]}},)"
      R"("status":{"allocation":{"devices":{"results":[)"
      R"({"request":"gpu","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}}}})";
  DecodeOptions opts;
  opts.strict = true;
  opts.expected = &ResourceClaim::Type();
  auto decoded = DecodeJson(kPlain, opts);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  auto* claim = As<ResourceClaim>(*decoded->object);
  SetResourceClaimSpecDefaults(claim->spec);
  EXPECT_FALSE(claim->spec.devices.requests.at(0).exactly->rare.allocated());
  EXPECT_FALSE(claim->status.allocation->devices.results.at(0).rare.allocated());

  std::string message;
  ASSERT_TRUE(EncodeProtobufMessage(*claim, message));
  auto back = DecodeProtobufMessage(ResourceClaim::Type(), message);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const auto& plain = static_cast<const ResourceClaim&>(**back);
  EXPECT_TRUE(ResourceClaim::Type().equal(plain, *claim));
  EXPECT_FALSE(plain.spec.devices.requests.at(0).exactly->rare.allocated());
  EXPECT_FALSE(plain.status.allocation->devices.results.at(0).rare.allocated());

  // Every rare field set (kResourceClaim): protobuf carries them all.
  auto full = DecodeJson(kResourceClaim, {});
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  message.clear();
  ASSERT_TRUE(EncodeProtobufMessage(*full->object, message));
  auto full_back = DecodeProtobufMessage(ResourceClaim::Type(), message);
  ASSERT_TRUE(full_back.ok()) << full_back.status().ToString();
  EXPECT_TRUE(ResourceClaim::Type().equal(**full_back, *full->object));
  const auto& result =
      static_cast<const ResourceClaim&>(**full_back).status.allocation->devices.results.at(0);
  EXPECT_EQ(result.rare->bindingFailureConditions, std::vector<std::string>{"example.com/failed"});
  EXPECT_EQ(result.rare->consumedCapacity.at("memory").ToString(), "4Gi");
}

}  // namespace
}  // namespace allot::api

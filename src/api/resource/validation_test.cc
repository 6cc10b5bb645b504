// Validation of the resource.k8s.io/v1 kinds: tables of bad inputs with the exact messages
// Kubernetes returns, update rules, and the KEP-5007 binding-condition example.
#include "api/resource/validation.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "api/codec/codec.h"
#include "api/machinery/resources.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::kSubdomainMsg;

const std::string kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string kCIdentifierMsg =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
    "validation is '[A-Za-z_][A-Za-z0-9_]*')";
const std::string kRequestRefMsg =
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'";

ExactDeviceRequest Exact(std::string cls = "gpu.example.com") {
  ExactDeviceRequest e;
  e.deviceClassName = std::move(cls);
  e.allocationMode = "ExactCount";
  e.count = 1;
  return e;
}

ResourceClaim ValidClaim() {
  ResourceClaim c;
  c.metadata.name = "claim";
  c.metadata.namespace_ = "ns";
  DeviceRequest r;
  r.name = "gpu";
  r.exactly = Exact();
  c.spec.devices.requests.push_back(r);
  return c;
}

DeviceSelector Cel(std::string expr) {
  DeviceSelector s;
  s.cel = CELDeviceSelector{std::move(expr)};
  return s;
}

DeviceRequestAllocationResult Result(std::string device) {
  return {
      .request = "gpu", .driver = "gpu.example.com", .pool = "node-1", .device = std::move(device)};
}

ResourceSlice ValidSlice() {
  ResourceSlice s;
  s.metadata.name = "slice";
  s.spec.driver = "gpu.example.com";
  s.spec.pool = {.name = "node-1", .generation = 0, .resourceSliceCount = 1};
  s.spec.nodeName = "node-1";
  Device d;
  d.name = "gpu-0";
  d.attributes["model"].stringValue = "LATEST-GPU-MODEL";
  s.spec.devices.push_back(d);
  return s;
}

DeviceClass ValidClass() {
  DeviceClass c;
  c.metadata.name = "gpu.example.com";
  c.spec.selectors.push_back(Cel("device.driver == 'gpu.example.com'"));
  return c;
}

template <class T>
struct Case {
  const char* name;
  std::function<void(T&)> mutate;
  std::vector<std::string> want;
};

template <class T, class F>
void RunCases(const std::vector<Case<T>>& cases, T (*valid)(), F validate) {
  for (const Case<T>& c : cases) {
    SCOPED_TRACE(c.name);
    T obj = valid();
    c.mutate(obj);
    FieldErrors errs;
    validate(obj, errs);
    EXPECT_EQ(errs.Messages(), c.want);
  }
}

TEST(DraValidationTest, ValidObjectsPass) {
  FieldErrors errs;
  ValidateResourceClaim(ValidClaim(), errs);
  ValidateResourceSlice(ValidSlice(), errs);
  ValidateDeviceClass(ValidClass(), errs);
  EXPECT_EQ(errs.Messages(), std::vector<std::string>{});
}

TEST(DraValidationTest, ResourceClaimSpec) {
  std::vector<Case<ResourceClaim>> cases = {
      {"neither exactly nor firstAvailable",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly.reset(); },
       {"spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` "
        "is required"}},
      {"both exactly and firstAvailable",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].firstAvailable.push_back(
             {.name = "a", .deviceClassName = "c", .allocationMode = "ExactCount", .count = 1});
       },
       {"spec.devices.requests[0]: Invalid value: \"null\": exactly one of `exactly` or "
        "`firstAvailable` is required, but multiple fields are set"}},
      {"request name not a DNS label",
       [](ResourceClaim& c) { c.spec.devices.requests[0].name = "GPU"; },
       {"spec.devices.requests[0].name: Invalid value: \"GPU\": " + kLabelMsg}},
      {"duplicate request names",
       [](ResourceClaim& c) { c.spec.devices.requests.push_back(c.spec.devices.requests[0]); },
       {"spec.devices.requests[1]: Duplicate value: \"gpu\""}},
      {"too many requests",
       [](ResourceClaim& c) {
         for (int i = 1; i <= 32; ++i) {
           DeviceRequest r = c.spec.devices.requests[0];
           r.name = "gpu" + std::to_string(i);
           c.spec.devices.requests.push_back(r);
         }
       },
       {"spec.devices.requests: Too many: 33: must have at most 32 items"}},
      {"deviceClassName required",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly->deviceClassName = ""; },
       {"spec.devices.requests[0].exactly.deviceClassName: Required value"}},
      {"count must be positive",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly->count = -1; },
       {"spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"}},
      {"count forbidden with All",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->allocationMode = "All";
         c.spec.devices.requests[0].exactly->count = 2;
       },
       {"spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when "
        "allocationMode is 'All'"}},
      {"unknown allocationMode",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly->allocationMode = "Some"; },
       {"spec.devices.requests[0].exactly.allocationMode: Unsupported value: \"Some\": "
        "supported values: \"All\", \"ExactCount\""}},
      {"too many selectors",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->selectors.assign(33, Cel("true"));
       },
       {"spec.devices.requests[0].exactly.selectors: Too many: 33: must have at most 32 items"}},
      {"CEL expression too long",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->selectors.push_back(Cel(std::string(10241, 'x')));
       },
       {"spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be "
        "more than 10240 bytes"}},
      {"selector without cel",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly->selectors.emplace_back(); },
       {"spec.devices.requests[0].exactly.selectors[0].cel: Required value"}},
      {"too many firstAvailable",
       [](ResourceClaim& c) {
         DeviceRequest& r = c.spec.devices.requests[0];
         r.exactly.reset();
         for (int i = 0; i < 9; ++i) {
           r.firstAvailable.push_back({.name = "s" + std::to_string(i),
                                       .deviceClassName = "c",
                                       .allocationMode = "ExactCount",
                                       .count = 1});
         }
       },
       {"spec.devices.requests[0].firstAvailable: Too many: 9: must have at most 8 items"}},
      {"subrequest errors",
       [](ResourceClaim& c) {
         DeviceRequest& r = c.spec.devices.requests[0];
         r.exactly.reset();
         r.firstAvailable.push_back({.name = "a", .deviceClassName = "", .allocationMode = "All"});
         r.firstAvailable.push_back({.name = "a", .deviceClassName = "c", .count = 1});
       },
       {"spec.devices.requests[0].firstAvailable[0].deviceClassName: Required value",
        "spec.devices.requests[0].firstAvailable[1].allocationMode: Unsupported value: \"\": "
        "supported values: \"All\", \"ExactCount\"",
        "spec.devices.requests[0].firstAvailable[1]: Duplicate value: \"a\""}},
      {"too many tolerations",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->rare.edit().tolerations.assign(
             17, {.operator_ = "Exists"});
       },
       {"spec.devices.requests[0].exactly.tolerations: Too many: 17: must have at most 16 "
        "items"}},
      {"toleration operator and effect",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->rare.edit().tolerations = {
             {.key = "k", .operator_ = "In", .effect = "PreferNoSchedule"},
             {.key = "k", .operator_ = "Exists", .value = "v"}};
       },
       {"spec.devices.requests[0].exactly.tolerations[0].operator: Unsupported value: \"In\": "
        "supported values: \"Equal\", \"Exists\"",
        "spec.devices.requests[0].exactly.tolerations[0].effect: Unsupported value: "
        "\"PreferNoSchedule\": supported values: \"NoExecute\", \"NoSchedule\"",
        "spec.devices.requests[0].exactly.tolerations[1].value: Invalid value: \"v\": must be "
        "empty for operator `Exists`"}},
      {"constraint references unknown request",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(
             {.requests = {"other"}, .matchAttribute = "gpu.example.com/numa"});
       },
       {"spec.devices.constraints[0].requests[0]: Invalid value: \"other\": " + kRequestRefMsg}},
      {"constraint attribute without domain",
       [](ResourceClaim& c) { c.spec.devices.constraints.push_back({.matchAttribute = "numa"}); },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: \"numa\": a fully qualified "
        "name must be a domain and a name separated by a slash"}},
      {"constraint without attribute",
       [](ResourceClaim& c) { c.spec.devices.constraints.emplace_back(); },
       {"spec.devices.constraints[0]: Required value: exactly one of \"matchAttribute\" or "
        "\"distinctAttribute\" is required, but multiple fields are set"}},
      {"too many constraints",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.assign(33, {.distinctAttribute = "gpu.example.com/id"});
       },
       {"spec.devices.constraints: Too many: 33: must have at most 32 items"}},
      {"config driver too long",
       [](ResourceClaim& c) {
         c.spec.devices.config.push_back(
             {.opaque = OpaqueDeviceConfiguration{std::string(64, 'a'), RawJson{"{}"}}});
       },
       {"spec.devices.config[0].opaque.driver: Too long: may not be more than 63 bytes"}},
      {"config parameters not an object",
       [](ResourceClaim& c) {
         c.spec.devices.config.push_back(
             {.opaque = OpaqueDeviceConfiguration{"gpu.example.com", RawJson{"[1,2]"}}});
       },
       {"spec.devices.config[0].opaque.parameters: Invalid value: \"<value omitted>\": must be a "
        "valid JSON object"}},
      {"config parameters too large",
       [](ResourceClaim& c) {
         std::string big = "{\"x\":\"" + std::string(10240, 'y') + "\"}";
         c.spec.devices.config.push_back(
             {.opaque = OpaqueDeviceConfiguration{"gpu.example.com", RawJson{big}}});
       },
       {"spec.devices.config[0].opaque.parameters: Too long: may not be more than 10240 bytes"}},
      {"config without opaque, unknown request",
       [](ResourceClaim& c) { c.spec.devices.config.push_back({.requests = {"gpu/sub"}}); },
       {"spec.devices.config[0].requests[0]: Invalid value: \"gpu/sub\": " + kRequestRefMsg,
        "spec.devices.config[0].opaque: Required value"}},
      {"controllerName must be a driver name",
       [](ResourceClaim& c) { c.spec.controllerName = "ctrl_example"; },
       {"spec.controllerName: Invalid value: \"ctrl_example\": " + kSubdomainMsg}},
      {"claim allocationMode values",
       [](ResourceClaim& c) {
         c.spec.controllerName = "ctrl.example.com";
         c.spec.allocationMode = "Later";
       },
       {"spec.allocationMode: Unsupported value: \"Later\": supported values: \"Immediate\", "
        "\"WaitForFirstConsumer\""}},
      {"Immediate needs a controller",
       [](ResourceClaim& c) { c.spec.allocationMode = "Immediate"; },
       {"spec.allocationMode: Forbidden: `Immediate` allocation requires `controllerName`"}},
      {"namespace required",
       [](ResourceClaim& c) { c.metadata.namespace_ = ""; },
       {"metadata.namespace: Required value"}},
  };
  RunCases(cases, ValidClaim,
           [](const ResourceClaim& c, FieldErrors& e) { ValidateResourceClaim(c, e); });
}

TEST(DraValidationTest, DeviceClassAndTemplate) {
  std::vector<Case<DeviceClass>> class_cases = {
      {"cluster scoped",
       [](DeviceClass& c) { c.metadata.namespace_ = "ns"; },
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"extended resource name",
       [](DeviceClass& c) { c.spec.extendedResourceName = "gpu"; },
       {"spec.extendedResourceName: Invalid value: \"gpu\": must be a valid extended resource "
        "name"}},
      {"too many configs",
       [](DeviceClass& c) {
         c.spec.config.assign(33, {OpaqueDeviceConfiguration{"gpu.example.com", RawJson{"{}"}}});
       },
       {"spec.config: Too many: 33: must have at most 32 items"}},
      {"empty suitableNodes",
       [](DeviceClass& c) { c.spec.suitableNodes.emplace(); },
       {"spec.suitableNodes.nodeSelectorTerms: Required value: must have at least one node "
        "selector term"}},
  };
  RunCases(class_cases, ValidClass,
           [](const DeviceClass& c, FieldErrors& e) { ValidateDeviceClass(c, e); });

  DeviceClass ok = ValidClass();
  ok.spec.extendedResourceName = "example.com/gpu";
  FieldErrors errs;
  ValidateDeviceClass(ok, errs);
  EXPECT_TRUE(errs.empty()) << errs.Messages()[0];

  ResourceClaimTemplate t;
  t.metadata.name = "tmpl";
  t.metadata.namespace_ = "ns";
  t.spec.metadata.labels["app"] = "x";
  t.spec.metadata.name = "not-allowed";
  t.spec.spec = ValidClaim().spec;
  t.spec.spec.devices.requests[0].name = "Bad";
  FieldErrors terrs;
  ValidateResourceClaimTemplate(t, terrs);
  EXPECT_EQ(terrs.Messages(),
            (std::vector<std::string>{
                "spec.metadata.name: Forbidden: cannot be set for a template",
                "spec.spec.devices.requests[0].name: Invalid value: \"Bad\": " + kLabelMsg}));
}

TEST(DraValidationTest, ResourceSlice) {
  std::vector<Case<ResourceSlice>> cases = {
      {"no node scoping",
       [](ResourceSlice& s) { s.spec.nodeName.reset(); },
       {"spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
        "`perDeviceNodeSelection` is required"}},
      {"two node scopings",
       [](ResourceSlice& s) { s.spec.allNodes = true; },
       {"spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, "
        "`nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields "
        "are set"}},
      {"empty nodeName",
       [](ResourceSlice& s) {
         s.spec.nodeName = "";
         s.spec.allNodes = true;
       },
       {"spec.nodeName: Invalid value: \"\": must be either unset or set to a non-empty string"}},
      {"driver required",
       [](ResourceSlice& s) { s.spec.driver = ""; },
       {"spec.driver: Required value", "spec.driver: Invalid value: \"\": " + kSubdomainMsg}},
      {"pool rules",
       [](ResourceSlice& s) {
         s.spec.pool = {.name = std::string(127, 'a') + "/" + std::string(126, 'b'),
                        .generation = -1,
                        .resourceSliceCount = 0};
       },
       {"spec.pool.name: Too long: may not be more than 253 bytes",
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
        "spec.pool.generation: Invalid value: -1: must be greater than or equal to zero"}},
      {"pool name required",
       [](ResourceSlice& s) { s.spec.pool.name = ""; },
       {"spec.pool.name: Required value"}},
      {"too many devices",
       [](ResourceSlice& s) {
         for (int i = 1; i <= 128; ++i) {
           Device d = s.spec.devices[0];
           d.name = "gpu-" + std::to_string(i);
           s.spec.devices.push_back(d);
         }
       },
       {"spec.devices: Too many: 129: must have at most 128 items"}},
      {"duplicate device",
       [](ResourceSlice& s) { s.spec.devices.push_back(s.spec.devices[0]); },
       {"spec.devices[1]: Duplicate value: \"gpu-0\""}},
      {"attributes and capacities",
       [](ResourceSlice& s) {
         for (int i = 0; i < 32; ++i) {
           s.spec.devices[0].capacity["c" + std::to_string(i)].value = Quantity::FromInt(1);
         }
       },
       {"spec.devices[0]: Invalid value: 33: the total number of attributes and capacities must "
        "not exceed 32"}},
      {"attribute without value",
       [](ResourceSlice& s) { s.spec.devices[0].attributes["model"] = {}; },
       {"spec.devices[0].attributes[model]: Invalid value: \"\": exactly one value must be "
        "specified"}},
      {"attribute values",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["driverVersion"].versionValue = "1.0";
         s.spec.devices[0].attributes["model"].stringValue = std::string(65, 'x');
       },
       {"spec.devices[0].attributes[driverVersion].version: Invalid value: \"1.0\": must be a "
        "string compatible with semver.org spec 2.0.0",
        "spec.devices[0].attributes[model].string: Too long: may not be more than 64 bytes"}},
      {"attribute names",
       [](ResourceSlice& s) {
         auto& attrs = s.spec.devices[0].attributes;
         attrs["bad-name"].intValue = 1;
         attrs["/x"].intValue = 1;
         attrs["gpu.example.com/" + std::string(33, 'y')].intValue = 1;
       },
       {"spec.devices[0].attributes[/x]: Invalid value: \"\": the domain must not be empty",
        "spec.devices[0].attributes[bad-name]: Invalid value: \"bad-name\": " + kCIdentifierMsg,
        "spec.devices[0].attributes[gpu.example.com/" + std::string(33, 'y') +
            "]: Too long: may not be more than 32 bytes"}},
      {"binding conditions need failure conditions",
       [](ResourceSlice& s) { s.spec.devices[0].bindingConditions = {"example.com/ready"}; },
       // Go prints the value unquoted ([]string(nil)); FieldErrors quotes it for now.
       {"spec.devices[0].bindingFailureConditions: Invalid value: \"[]string(nil)\": "
        "bindingFailureConditions are required to use bindingConditions"}},
      {"binding condition duplicates and overlap",
       [](ResourceSlice& s) {
         s.spec.devices[0].bindingConditions = {"example.com/a", "example.com/a"};
         s.spec.devices[0].bindingFailureConditions = {"example.com/a"};
       },
       {"spec.devices[0].bindingConditions[1]: Duplicate value: \"example.com/a\"",
        "spec.devices[0].bindingFailureConditions[0]: Invalid value: \"example.com/a\": "
        "bindingFailureConditions must not overlap with bindingConditions"}},
      {"per-device node fields need perDeviceNodeSelection",
       [](ResourceSlice& s) { s.spec.devices[0].nodeName = "node-1"; },
       {"spec.devices[0]: Invalid value: \"null\": `nodeName`, `nodeSelector` and `allNodes` can "
        "only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"}},
      {"perDeviceNodeSelection needs a device scope",
       [](ResourceSlice& s) {
         s.spec.nodeName.reset();
         s.spec.perDeviceNodeSelection = true;
       },
       {"spec.devices[0]: Required value: exactly one of `nodeName`, `nodeSelector`, or "
        "`allNodes` is required when `perDeviceNodeSelection` is set to true in the "
        "ResourceSlice spec"}},
      {"too many taints",
       [](ResourceSlice& s) {
         s.spec.devices[0].taints.assign(5, {.key = "example.com/t", .effect = "NoSchedule"});
       },
       {"spec.devices[0].taints: Too many: 5: must have at most 4 items"}},
      {"taint effect",
       [](ResourceSlice& s) {
         s.spec.devices[0].taints = {{.key = "example.com/t", .effect = "PreferNoSchedule"},
                                     {.key = "example.com/t"}};
       },
       {"spec.devices[0].taints[0].effect: Unsupported value: \"PreferNoSchedule\": supported "
        "values: \"NoExecute\", \"NoSchedule\", \"None\"",
        "spec.devices[0].taints[1].effect: Required value"}},
      {"request policy needs allowMultipleAllocations",
       [](ResourceSlice& s) {
         DeviceCapacity& c = s.spec.devices[0].capacity["memory"];
         c.value = *Quantity::Parse("8Gi");
         c.requestPolicy.emplace().defaultValue = *Quantity::Parse("1Gi");
       },
       {"spec.devices[0].capacity[memory].requestPolicy: Forbidden: allowMultipleAllocations "
        "must be true"}},
      {"request policy default not a valid value",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.allowMultipleAllocations = true;
         DeviceCapacity& c = d.capacity["memory"];
         c.value = *Quantity::Parse("8Gi");
         CapacityRequestPolicy& p = c.requestPolicy.emplace();
         p.defaultValue = *Quantity::Parse("3Gi");
         p.validValues = {*Quantity::Parse("1Gi"), *Quantity::Parse("2Gi")};
       },
       {"spec.devices[0].capacity[memory].requestPolicy.validValues: Invalid value: \"3Gi\": "
        "default value is not valid according to the requestPolicy"}},
      {"consumed counter set must exist",
       [](ResourceSlice& s) {
         s.spec.devices[0].consumesCounters = {
             {.counterSet = "missing", .counters = {{"memory", {Quantity::FromInt(1)}}}}};
       },
       {"spec.devices[0].consumesCounters[0].counterSet: Invalid value: \"missing\": must "
        "reference a counterSet defined in the ResourceSlice sharedCounters"}},
      {"too many shared counters",
       [](ResourceSlice& s) {
         CounterSet set{.name = "set"};
         for (int i = 0; i < 33; ++i)
           set.counters["c" + std::to_string(i)].value = Quantity::FromInt(1);
         s.spec.sharedCounters = {set};
       },
       {"spec.sharedCounters: Invalid value: 33: the total number of shared counters must not "
        "exceed 32"}},
      {"duplicate counter sets",
       [](ResourceSlice& s) {
         CounterSet set{.name = "set", .counters = {{"memory", {Quantity::FromInt(1)}}}};
         s.spec.sharedCounters = {set, set};
       },
       {"spec.sharedCounters[1]: Duplicate value: \"set\""}},
  };
  RunCases(cases, ValidSlice, ValidateResourceSlice);
}

// The KEP-5007 shape from api-reference §1.5: a fabric pool whose devices are attached on
// demand, so each carries bindsToNode and both condition lists.
ResourceSlice FabricSlice() {
  auto decoded =
      DecodeJson(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",)"
                 R"("metadata":{"name":"fabric-gpu-pool"},)"
                 R"("spec":{"driver":"fabric.example.com","pool":{"name":"fabric","generation":1,)"
                 R"("resourceSliceCount":1},"allNodes":true,"devices":[)"
                 R"({"name":"gpu-0","attributes":{"model":{"string":"A100"}},)"
                 R"("capacity":{"memory":{"value":"80Gi"}},"bindsToNode":true,)"
                 R"("bindingConditions":["fabric.example.com/is-attached"],)"
                 R"("bindingFailureConditions":["fabric.example.com/attach-failed"]}]}})",
                 {});
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  return *As<ResourceSlice>(*decoded->object);
}

TEST(DraValidationTest, BindingConditionsExample) {
  ResourceSlice slice = FabricSlice();
  ASSERT_EQ(slice.spec.devices.size(), 1u);
  EXPECT_EQ(slice.spec.devices[0].bindsToNode, true);
  FieldErrors ok;
  ValidateResourceSlice(slice, ok);
  EXPECT_TRUE(ok.empty()) << ok.Messages()[0];

  // The fourth device with five binding conditions.
  for (int i = 1; i <= 3; ++i) {
    Device d = slice.spec.devices[0];
    d.name = "gpu-" + std::to_string(i);
    slice.spec.devices.push_back(d);
  }
  slice.spec.devices[3].bindingConditions = {"a.example.com/c1", "a.example.com/c2",
                                             "a.example.com/c3", "a.example.com/c4",
                                             "a.example.com/c5"};
  FieldErrors errs;
  ValidateResourceSlice(slice, errs);
  EXPECT_EQ(errs.Messages(),
            std::vector<std::string>{"spec.devices[3].bindingConditions: Too many: 5: must have at "
                                     "most 4 items"});
  Status st = errs.ToStatus("ResourceSlice", "resource.k8s.io", slice.metadata.name);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(),
            "ResourceSlice.resource.k8s.io \"fabric-gpu-pool\" is invalid: "
            "spec.devices[3].bindingConditions: Too many: 5: must have at most 4 items");
  EXPECT_EQ(st.details().causes[0].reason, "FieldValueTooMany");
}

TEST(DraValidationTest, ImmutableOnUpdate) {
  ResourceClaim old_claim = ValidClaim();
  old_claim.metadata.resourceVersion = "1";
  ResourceClaim claim = old_claim;
  claim.spec.devices.requests[0].exactly->count = 2;
  const ResourceInfo* claims =
      ResourceRegistry::Default().Find("resource.k8s.io", "v1", "resourceclaims");
  ASSERT_NE(claims, nullptr);
  FieldErrors errs;
  claims->validate_update(claim, old_claim, errs);
  EXPECT_EQ(errs.ToStatus("ResourceClaim", "resource.k8s.io", "claim").message(),
            "ResourceClaim.resource.k8s.io \"claim\" is invalid: spec: Invalid value: "
            "\"object\": field is immutable");

  ResourceClaimTemplate old_tmpl;
  old_tmpl.metadata.name = "t";
  old_tmpl.metadata.namespace_ = "ns";
  old_tmpl.spec.spec = ValidClaim().spec;
  ResourceClaimTemplate tmpl = old_tmpl;
  tmpl.spec.metadata.labels["new"] = "label";
  FieldErrors terrs;
  ValidateResourceClaimTemplateUpdate(tmpl, old_tmpl, terrs);
  EXPECT_EQ(terrs.Messages(),
            std::vector<std::string>{"spec: Invalid value: \"object\": field is immutable"});

  ResourceSlice old_slice = ValidSlice();
  ResourceSlice slice = old_slice;
  slice.spec.driver = "other.example.com";
  slice.spec.pool.name = "node-2";
  slice.spec.nodeName.reset();
  slice.spec.allNodes = true;
  slice.spec.devices[0].attributes["extra"].boolValue = true;  // devices may change
  FieldErrors serrs;
  ValidateResourceSliceUpdate(slice, old_slice, serrs);
  EXPECT_EQ(serrs.Messages(),
            (std::vector<std::string>{
                "spec.pool.name: Invalid value: \"node-2\": field is immutable",
                "spec.driver: Invalid value: \"other.example.com\": field is immutable",
                "spec.nodeName: Invalid value: \"null\": field is immutable"}));

  // DeviceClass specs are mutable; the name is not.
  DeviceClass old_class = ValidClass();
  DeviceClass dc = old_class;
  dc.spec.selectors.clear();
  FieldErrors cerrs;
  ValidateDeviceClassUpdate(dc, old_class, cerrs);
  EXPECT_TRUE(cerrs.empty());
  dc.metadata.name = "renamed";
  ValidateDeviceClassUpdate(dc, old_class, cerrs);
  EXPECT_EQ(cerrs.Messages(),
            std::vector<std::string>{"metadata.name: Invalid value: \"renamed\": field is "
                                     "immutable"});
}

ResourceClaim AllocatedClaim() {
  ResourceClaim c = ValidClaim();
  c.status.allocation.emplace();
  c.status.allocation->devices.results.push_back(Result("gpu-0"));
  return c;
}

struct StatusCase {
  const char* name;
  std::function<void(ResourceClaim& old, ResourceClaim& now)> mutate;
  std::vector<std::string> want;
};

TEST(DraValidationTest, ResourceClaimStatus) {
  ResourceClaimConsumerReference pod{.resource = "pods", .name = "p", .uid = "u1"};
  std::vector<StatusCase> cases = {
      {"reservedFor needs an allocation",
       [&](ResourceClaim&, ResourceClaim& c) { c.status.reservedFor = {pod}; },
       {"status.reservedFor: Forbidden: may not be specified when `allocated` is not set"}},
      {"reservedFor limit",
       [&](ResourceClaim&, ResourceClaim& c) {
         c = AllocatedClaim();
         for (int i = 0; i < 257; ++i) {
           c.status.reservedFor.push_back(
               {.resource = "pods", .name = "p", .uid = "u" + std::to_string(i)});
         }
       },
       {"status.reservedFor: Too many: 257: must have at most 256 items"}},
      {"reservedFor unique uids and required fields",
       [&](ResourceClaim&, ResourceClaim& c) {
         c = AllocatedClaim();
         c.status.reservedFor = {pod, pod, {.resource = "pods", .name = "q"}};
       },
       {"status.reservedFor[2].uid: Required value",
        "status.reservedFor[1]: Duplicate value: \"u1\""}},
      {"too many results",
       [&](ResourceClaim&, ResourceClaim& c) {
         c = AllocatedClaim();
         for (int i = 1; i <= 32; ++i) {
           c.status.allocation->devices.results.push_back(Result("gpu-" + std::to_string(i)));
         }
       },
       {"status.allocation.devices.results: Too many: 33: must have at most 32 items"}},
      {"result must name a request",
       [&](ResourceClaim&, ResourceClaim& c) {
         c = AllocatedClaim();
         c.status.allocation->devices.results[0].request = "other";
       },
       {"status.allocation.devices.results[0].request: Invalid value: \"other\": " +
        kRequestRefMsg}},
      {"allocation config source",
       [&](ResourceClaim&, ResourceClaim& c) {
         c = AllocatedClaim();
         c.status.allocation->devices.config.push_back(
             {.source = "FromNowhere",
              .opaque = OpaqueDeviceConfiguration{"gpu.example.com", RawJson{"{}"}}});
       },
       {"status.allocation.devices.config[0].source: Unsupported value: \"FromNowhere\": "
        "supported values: \"FromClaim\", \"FromClass\""}},
      {"allocation cannot change",
       [&](ResourceClaim& old, ResourceClaim& c) {
         old = AllocatedClaim();
         c = AllocatedClaim();
         c.status.allocation->devices.results[0].device = "gpu-1";
       },
       {"status.allocation: Invalid value: \"object\": field is immutable"}},
      {"device status must match an allocated device",
       [&](ResourceClaim&, ResourceClaim& c) {
         c = AllocatedClaim();
         c.status.devices.push_back(
             {.driver = "gpu.example.com", .pool = "node-1", .device = "gpu-9"});
       },
       {"status.devices[0]: Invalid value: \"gpu.example.com/node-1/gpu-9\": must be an "
        "allocated device in the claim"}},
      {"device status limits",
       [&](ResourceClaim&, ResourceClaim& c) {
         c = AllocatedClaim();
         AllocatedDeviceStatus d{.driver = "gpu.example.com", .pool = "node-1", .device = "gpu-0"};
         for (int i = 0; i < 9; ++i) {
           d.conditions.push_back({.type = "c" + std::to_string(i),
                                   .status = "True",
                                   .lastTransitionTime = Time::FromUnixSeconds(1700000000),
                                   .reason = "R"});
         }
         d.data.json = "{\"x\":\"" + std::string(10240, 'y') + "\"}";
         c.status.devices.push_back(d);
       },
       {"status.devices[0].conditions: Too many: 9: must have at most 8 items",
        "status.devices[0].data: Too long: may not be more than 10240 bytes"}},
      {"deallocationRequested needs an allocation",
       [&](ResourceClaim&, ResourceClaim& c) { c.status.deallocationRequested = true; },
       {"status: Forbidden: `allocation` must be set when `deallocationRequested` is set"}},
      {"deallocation cannot be requested while reserved",
       [&](ResourceClaim& old, ResourceClaim& c) {
         old = AllocatedClaim();
         old.status.reservedFor = {pod};
         c = old;
         c.status.deallocationRequested = true;
       },
       {"status.deallocationRequested: Forbidden: deallocation cannot be requested while "
        "`reservedFor` is set"}},
      {"deallocationRequested stays until the allocation goes",
       [&](ResourceClaim& old, ResourceClaim& c) {
         old = AllocatedClaim();
         old.status.deallocationRequested = true;
         c = AllocatedClaim();
       },
       {"status.deallocationRequested: Forbidden: may not be cleared when `allocation` is set"}},
      {"no new consumers while deallocating",
       [&](ResourceClaim& old, ResourceClaim& c) {
         old = AllocatedClaim();
         old.status.deallocationRequested = true;
         c = old;
         c.status.reservedFor = {pod};
       },
       {"status.reservedFor: Forbidden: new entries may not be added while "
        "`deallocationRequested` or `deletionTimestamp` are set"}},
  };
  for (const StatusCase& c : cases) {
    SCOPED_TRACE(c.name);
    ResourceClaim old = ValidClaim();
    ResourceClaim now = ValidClaim();
    c.mutate(old, now);
    FieldErrors errs;
    ValidateResourceClaimStatusUpdate(now, old, errs);
    EXPECT_EQ(errs.Messages(), c.want);
  }

  // The normal lifecycle passes: allocate and reserve, then release and deallocate.
  ResourceClaim pending = ValidClaim();
  ResourceClaim allocated = AllocatedClaim();
  allocated.status.reservedFor = {pod};
  allocated.status.allocation->allocationTimestamp = Time::FromUnixSeconds(1700000000);
  allocated.status.devices.push_back(
      {.driver = "gpu.example.com",
       .pool = "node-1",
       .device = "gpu-0",
       .networkData = NetworkDeviceData{.interfaceName = "eth1", .ips = {"10.0.0.5/24"}}});
  FieldErrors errs;
  ValidateResourceClaimStatusUpdate(allocated, pending, errs);
  ValidateResourceClaimStatusUpdate(pending, allocated, errs);
  EXPECT_EQ(errs.Messages(), std::vector<std::string>{});
}

// The CEL check with a fake checker (api_test does not link the CEL library).
ExpressionCheckResult FakeSelectorChecker(std::string_view expr) {
  ExpressionCheckResult r;
  if (expr == "bad") r.error = "compilation failed: ERROR: <input>:1:1: fake";
  if (expr == "heavy") r.estimated_cost = kCELSelectorExpressionMaxCost + 1;
  if (expr == "at-limit") r.estimated_cost = kCELSelectorExpressionMaxCost;
  return r;
}

TEST(DraValidationTest, SelectorCheckerHook) {
  const Validators fake{.device_selector = &FakeSelectorChecker};
  DeviceClass c = ValidClass();
  c.spec.selectors = {Cel("ok"), Cel("bad"), Cel("heavy"), Cel("at-limit"), Cel("")};
  FieldErrors errs;
  ValidateDeviceClass(c, errs, fake);
  EXPECT_EQ(errs.Messages(),
            (std::vector<std::string>{
                "spec.selectors[1].cel.expression: Invalid value: \"bad\": compilation failed: "
                "ERROR: <input>:1:1: fake",
                "spec.selectors[2].cel.expression: Forbidden: too complex, exceeds cost limit",
                "spec.selectors[4].cel.expression: Required value"}));
  ResourceClaim claim = ValidClaim();
  claim.spec.devices.requests[0].exactly->selectors = {Cel("bad")};
  FieldErrors claim_errs;
  ValidateResourceClaim(claim, claim_errs, fake);
  ASSERT_EQ(claim_errs.size(), 1u);
  EXPECT_EQ(claim_errs.causes()[0].field,
            "spec.devices.requests[0].exactly.selectors[0].cel.expression");
  FieldErrors none;
  ValidateDeviceClass(c, none);  // no checker: expressions are not compiled
  EXPECT_EQ(none.size(), 1u);    // only the empty expression
  const ResourceInfo* classes =
      ResourceRegistry::Default().Find("resource.k8s.io", "v1", "deviceclasses");
  FieldErrors hook_errs;
  classes->validate(c, hook_errs, fake);  // the hook passes the validators on
  EXPECT_EQ(hook_errs.size(), 3u);
}

}  // namespace
}  // namespace allot::api

// resource.k8s.io v1beta1 and v1beta2, and events.k8s.io/v1: each field that differs from the
// stored version converts both ways, as Kubernetes converts it.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "api/codec/codec.h"
#include "api/machinery/resources.h"

namespace allot::api {
namespace {

const ServedVersion& Served(std::string group, std::string version, std::string resource) {
  const ServedVersion* sv = ResourceRegistry::Default().FindServed(group, version, resource);
  EXPECT_NE(sv, nullptr) << group << "/" << version << " " << resource;
  return *sv;
}

std::string Convert(std::string_view json, bool to_storage, const ServedVersion& sv) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  EXPECT_FALSE(doc.HasParseError()) << json;
  if (to_storage) {
    EXPECT_TRUE(sv.to_storage(doc).ok());
  } else {
    sv.from_storage(doc);
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  doc.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

// `served` (in its version) converts to `stored`, which decodes as the stored kind, and back.
void ExpectBothWays(const ServedVersion& sv, const std::string& served, const std::string& stored) {
  EXPECT_EQ(Convert(served, true, sv), stored);
  EXPECT_EQ(Convert(stored, false, sv), served);
  DecodeOptions opts;
  opts.strict = true;
  auto decoded = DecodeJson(stored, opts);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(EncodeJson(*decoded->object), stored);
}

TEST(ServedVersionsTest, V1beta1RequestsKeepExactFieldsAtTheTop) {
  const ServedVersion& sv = Served("resource.k8s.io", "v1beta1", "resourceclaimtemplates");
  ExpectBothWays(
      sv,
      R"({"kind":"ResourceClaimTemplate","apiVersion":"resource.k8s.io/v1beta1",)"
      R"("metadata":{"name":"t","namespace":"d"},"spec":{"metadata":{},"spec":{"devices":{"requests":[)"
      R"({"name":"gpu","deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"true"}}],)"
      R"("allocationMode":"ExactCount","count":2,"adminAccess":false,)"
      R"("tolerations":[{"key":"k","operator":"Exists"}]},)"
      R"({"name":"any","firstAvailable":[{"name":"big","deviceClassName":"gpu.example.com"}]}]}}}})",
      R"({"kind":"ResourceClaimTemplate","apiVersion":"resource.k8s.io/v1",)"
      R"("metadata":{"name":"t","namespace":"d"},"spec":{"metadata":{},"spec":{"devices":{"requests":[)"
      R"({"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"true"}}],)"
      R"("allocationMode":"ExactCount","count":2,"adminAccess":false,)"
      R"("tolerations":[{"key":"k","operator":"Exists"}]}},)"
      R"({"name":"any","firstAvailable":[{"name":"big","deviceClassName":"gpu.example.com"}]}]}}}})");
}

TEST(ServedVersionsTest, V1beta1DevicesKeepTheirFieldsUnderBasic) {
  const ServedVersion& sv = Served("resource.k8s.io", "v1beta1", "resourceslices");
  ExpectBothWays(
      sv,
      R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1beta1","metadata":{"name":"s"},)"
      R"("spec":{"driver":"gpu.example.com","pool":{"name":"n","generation":1,)"
      R"("resourceSliceCount":1},"nodeName":"n","devices":[{"name":"gpu-0","basic":{)"
      R"("attributes":{"model":{"string":"a100"}},"capacity":{"memory":{"value":"80Gi"}},)"
      R"("taints":[{"key":"k","effect":"NoSchedule"}],"bindsToNode":true,)"
      R"("bindingConditions":["ready"],"bindingFailureConditions":["failed"]}},)"
      R"({"name":"bare","basic":{}}]}})",
      R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":{"name":"s"},)"
      R"("spec":{"driver":"gpu.example.com","pool":{"name":"n","generation":1,)"
      R"("resourceSliceCount":1},"nodeName":"n","devices":[{"name":"gpu-0",)"
      R"("attributes":{"model":{"string":"a100"}},"capacity":{"memory":{"value":"80Gi"}},)"
      R"("taints":[{"key":"k","effect":"NoSchedule"}],"bindsToNode":true,)"
      R"("bindingConditions":["ready"],"bindingFailureConditions":["failed"]},)"
      R"({"name":"bare"}]}})");
}

TEST(ServedVersionsTest, V1beta2IsV1WithAnotherApiVersion) {
  for (const char* resource : {"deviceclasses", "resourceclaims", "resourceclaimtemplates",
                               "resourceslices", "devicetaintrules"}) {
    const ServedVersion& sv = Served("resource.k8s.io", "v1beta2", resource);
    EXPECT_EQ(sv.view.type->api_version, "resource.k8s.io/v1beta2");
    EXPECT_EQ(sv.view.type->kind, sv.storage->type->kind);
    EXPECT_EQ(sv.storage->version, "v1");
  }
  const ServedVersion& sv = Served("resource.k8s.io", "v1beta2", "deviceclasses");
  ExpectBothWays(sv,
                 R"({"kind":"DeviceClass","apiVersion":"resource.k8s.io/v1beta2",)"
                 R"("metadata":{"name":"gpu"},"spec":{"extendedResourceName":"example.com/gpu"}})",
                 R"({"kind":"DeviceClass","apiVersion":"resource.k8s.io/v1",)"
                 R"("metadata":{"name":"gpu"},"spec":{"extendedResourceName":"example.com/gpu"}})");
}

TEST(ServedVersionsTest, EventsV1RenamesCoreEventFields) {
  const ServedVersion& sv = Served("events.k8s.io", "v1", "events");
  EXPECT_EQ(sv.storage->group, "");
  EXPECT_EQ(Convert(R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e"},)"
                    R"("eventTime":"2026-12-02T10:00:00.000000Z","reportingController":"c",)"
                    R"("reportingInstance":"i","action":"Bind","reason":"Scheduled",)"
                    R"("regarding":{"kind":"Pod","name":"p"},"note":"bound","type":"Normal",)"
                    R"("deprecatedCount":2,"deprecatedSource":{"component":"c"}})",
                    true, sv),
            R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},)"
            R"("eventTime":"2026-12-02T10:00:00.000000Z","reportingComponent":"c",)"
            R"("reportingInstance":"i","action":"Bind","reason":"Scheduled",)"
            R"("involvedObject":{"kind":"Pod","name":"p"},"message":"bound","type":"Normal",)"
            R"("count":2,"source":{"component":"c"}})");
  EXPECT_EQ(Convert(R"({"kind":"Event","apiVersion":"v1","metadata":{"name":"e"},)"
                    R"("involvedObject":{"kind":"Pod","name":"p"},"reason":"Scheduled",)"
                    R"("message":"bound","source":{"component":"c"},"count":1,"type":"Normal",)"
                    R"("eventTime":"2026-12-02T10:00:00.000000Z","reportingComponent":"c"})",
                    false, sv),
            R"({"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"e"},)"
            R"("eventTime":"2026-12-02T10:00:00.000000Z","reportingController":"c",)"
            R"("reason":"Scheduled","regarding":{"kind":"Pod","name":"p"},"note":"bound",)"
            R"("type":"Normal","deprecatedSource":{"component":"c"},"deprecatedCount":1})");
}

}  // namespace
}  // namespace allot::api

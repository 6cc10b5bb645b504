// Rare<T> (api/machinery/rare.h): the rarely set fields of Container, PodSpec, PodStatus and
// ObjectMeta live out of line, and neither codec, the schema nor equality can tell.
#include "api/machinery/rare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec/codec.h"
#include "api/codec/protobuf_wire.h"
#include "api/core/types.h"
#include "api/machinery/reflect.h"
#include "api/protobuf.h"

namespace allot::api {
namespace {

std::unique_ptr<Pod> Decode(std::string_view json) {
  DecodeOptions opts;
  opts.strict = true;
  opts.expected = &Pod::Type();
  auto decoded = DecodeJson(json, opts);
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  if (!decoded.ok()) return std::make_unique<Pod>();
  return std::unique_ptr<Pod>(static_cast<Pod*>(decoded->object.release()));
}

constexpr std::string_view kPlainPod = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"p","namespace":"default"},
  "spec":{"containers":[{"name":"c","image":"busybox",
    "resources":{"requests":{"cpu":"1"}}}]},
  "status":{"phase":"Pending"}})";

// Rare fields of all four structs, among common ones.
constexpr std::string_view kRarePod = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"p","namespace":"default","selfLink":"/api/v1/x"},
  "spec":{"containers":[{"name":"c","image":"busybox","workingDir":"/w",
      "readinessProbe":{"exec":{"command":["true"]}},"stdin":true}],
    "activeDeadlineSeconds":60,"hostname":"h","hostUsers":false,
    "hostAliases":[{"ip":"10.0.0.1","hostnames":["a"]}]},
  "status":{"phase":"Failed","reason":"Evicted","message":"gone"}})";

TEST(RareTest, UnsetReadsAsEmptyAndSetOfEmptyAllocatesNothing) {
  Rare<PodSpecRare> r;
  EXPECT_FALSE(r.allocated());
  EXPECT_TRUE(r->hostname.empty());
  EXPECT_FALSE(r->activeDeadlineSeconds.has_value());
  r.set(&PodSpecRare::hostname, std::string());
  EXPECT_FALSE(r.allocated());
  r.set(&PodSpecRare::hostname, std::string("h"));
  ASSERT_TRUE(r.allocated());
  EXPECT_EQ(r->hostname, "h");
}

TEST(RareTest, CopiesAreDeepAndEmptyEqualsUnset) {
  Rare<ContainerRare> a;
  a.edit().workingDir = "/w";
  Rare<ContainerRare> b = a;
  b.edit().workingDir = "/x";
  EXPECT_EQ(a->workingDir, "/w");
  EXPECT_FALSE(a == b);

  Rare<ContainerRare> unset, emptied;
  emptied.edit().workingDir = "/w";
  emptied.edit().workingDir.clear();
  EXPECT_TRUE(emptied.allocated());
  EXPECT_TRUE(unset == emptied);
  emptied.compact();
  EXPECT_FALSE(emptied.allocated());
  b.compact();
  EXPECT_EQ(b->workingDir, "/x");
}

TEST(RareTest, APodWithoutRareFieldsDecodesWithoutAllocatingThem) {
  auto pod = Decode(kPlainPod);
  EXPECT_FALSE(pod->metadata.rare.allocated());
  EXPECT_FALSE(pod->spec.rare.allocated());
  EXPECT_FALSE(pod->status.rare.allocated());
  ASSERT_EQ(pod->spec.containers.size(), 1u);
  EXPECT_FALSE(pod->spec.containers[0].rare.allocated());
  EXPECT_EQ(pod->spec.containers[0].resources.requests.at("cpu").ToString(), "1");
}

TEST(RareTest, RareFieldsDecodeAndEncodeInKubernetesOrder) {
  auto pod = Decode(kRarePod);
  const Container& c = pod->spec.containers.at(0);
  EXPECT_EQ(c.rare->workingDir, "/w");
  EXPECT_TRUE(c.rare->stdin);
  EXPECT_EQ(c.rare->readinessProbe.json, R"({"exec":{"command":["true"]}})");
  EXPECT_EQ(pod->spec.rare->activeDeadlineSeconds, 60);
  EXPECT_EQ(pod->spec.rare->hostname, "h");
  EXPECT_EQ(pod->spec.rare->hostUsers, false);
  EXPECT_EQ(pod->status.rare->reason, "Evicted");
  EXPECT_EQ(pod->metadata.rare->selfLink, "/api/v1/x");

  // Each field where Kubernetes writes it: a rare field between common ones.
  const std::string json = EncodeJson(*pod);
  auto before = [&](std::string_view a, std::string_view b) {
    size_t i = json.find(a), j = json.find(b);
    return i != std::string::npos && j != std::string::npos && i < j;
  };
  EXPECT_TRUE(before(R"("image":"busybox")", R"("workingDir":"/w")")) << json;
  EXPECT_TRUE(before(R"("workingDir":"/w")", R"("readinessProbe")")) << json;
  EXPECT_TRUE(before(R"("resources")", R"("readinessProbe")")) << json;
  EXPECT_TRUE(before(R"("readinessProbe")", R"("stdin":true)")) << json;
  EXPECT_TRUE(before(R"("containers")", R"("activeDeadlineSeconds":60)")) << json;
  EXPECT_TRUE(before(R"("activeDeadlineSeconds":60)", R"("hostname":"h")")) << json;
  EXPECT_TRUE(before(R"("hostAliases")", R"("hostUsers":false)")) << json;
  EXPECT_TRUE(before(R"("phase":"Failed")", R"("reason":"Evicted")")) << json;
  EXPECT_TRUE(before(R"("namespace":"default")", R"("selfLink")")) << json;

  auto again = Decode(json);
  EXPECT_TRUE(Pod::Type().equal(*again, *pod));
  EXPECT_EQ(EncodeJson(*again), json);
}

TEST(RareTest, ADuplicateRareFieldIsReported) {
  DecodeOptions opts;
  opts.strict = true;
  opts.expected = &Pod::Type();
  auto r = DecodeJson(R"({"spec":{"hostname":"a","hostname":"b","containers":[]}})", opts);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(R"(duplicate field "spec.hostname")"), std::string::npos)
      << r.status().message();
}

TEST(RareTest, ATypeErrorInARareFieldNamesItsPath) {
  auto r = DecodeJson(
      R"({"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c","stdin":"yes"}]}})", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("spec.containers[0].stdin"), std::string::npos)
      << r.status().message();
}

TEST(RareTest, ProtobufCarriesRareFieldsAndAllocatesOnlyForThem) {
  // Probes are opaque to protobuf here, so this pod's container sets other rare fields.
  auto pod = Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
    "spec":{"containers":[{"name":"c","image":"i","workingDir":"/w","tty":true}],
      "activeDeadlineSeconds":60,"hostUsers":false},
    "status":{"reason":"Evicted"}})");
  std::string message;
  ASSERT_TRUE(EncodeProtobufMessage(*pod, message));
  std::string body;
  AppendProtobufEnvelope(Pod::Type(), message, body);
  auto back = DecodeProtobufObject(Pod::Type(), body);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const Pod& p = static_cast<const Pod&>(**back);
  EXPECT_TRUE(Pod::Type().equal(p, *pod));
  EXPECT_EQ(p.spec.containers.at(0).rare->workingDir, "/w");
  EXPECT_TRUE(p.spec.containers.at(0).rare->tty);
  EXPECT_EQ(p.spec.rare->hostUsers, false);
  EXPECT_FALSE(p.metadata.rare.allocated());

  auto plain = Decode(kPlainPod);
  message.clear();
  ASSERT_TRUE(EncodeProtobufMessage(*plain, message));
  body.clear();
  AppendProtobufEnvelope(Pod::Type(), message, body);
  auto plain_back = DecodeProtobufObject(Pod::Type(), body);
  ASSERT_TRUE(plain_back.ok()) << plain_back.status().ToString();
  const Pod& q = static_cast<const Pod&>(**plain_back);
  EXPECT_FALSE(q.spec.rare.allocated());
  EXPECT_FALSE(q.status.rare.allocated());
  EXPECT_FALSE(q.spec.containers.at(0).rare.allocated());
}

// Go writes its plain strings and bools even when empty: a pod from client-go carries its rare
// fields as "" and false, and those must not allocate the rare parts.
TEST(RareTest, GoStyleZeroFieldsAllocateNothing) {
  std::string container, spec, meta, status, pod;
  protobuf::Writer c(container);
  c.BytesField(1, "c");  // name
  c.BytesField(2, "i");  // image
  c.BytesField(5, "");   // workingDir
  c.VarintField(16, 0);  // stdin
  c.VarintField(17, 0);  // stdinOnce
  c.VarintField(18, 0);  // tty
  protobuf::Writer sp(spec);
  sp.BytesField(2, container);  // containers
  sp.BytesField(9, "");         // serviceAccount
  sp.BytesField(16, "");        // hostname
  sp.BytesField(17, "x");       // subdomain: set
  protobuf::Writer m(meta);
  m.BytesField(1, "p");  // name
  m.BytesField(4, "");   // selfLink
  protobuf::Writer st(status);
  st.BytesField(3, "");  // message
  st.BytesField(4, "");  // reason
  protobuf::Writer w(pod);
  w.BytesField(1, meta);
  w.BytesField(2, spec);
  w.BytesField(3, status);

  auto decoded = DecodeProtobufMessage(Pod::Type(), pod);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  const Pod& p = static_cast<const Pod&>(**decoded);
  EXPECT_FALSE(p.metadata.rare.allocated());
  EXPECT_FALSE(p.status.rare.allocated());
  EXPECT_FALSE(p.spec.containers.at(0).rare.allocated());
  ASSERT_TRUE(p.spec.rare.allocated());  // subdomain
  EXPECT_EQ(p.spec.rare->subdomain, "x");
  EXPECT_TRUE(p.spec.rare->hostname.empty());

  // The same in JSON, with null and zero values.
  auto json = Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","selfLink":""},
    "spec":{"containers":[{"name":"c","workingDir":null,"stdin":false}],"hostname":""},
    "status":{"reason":null}})");
  EXPECT_FALSE(json->metadata.rare.allocated());
  EXPECT_FALSE(json->spec.rare.allocated());
  EXPECT_FALSE(json->status.rare.allocated());
  EXPECT_FALSE(json->spec.containers.at(0).rare.allocated());
}

TEST(RareTest, TheSchemaListsRareFieldsInPlace) {
  const SchemaNode& c = reflect::SchemaOf<Container>();
  std::vector<std::string> names;
  for (const auto& f : c.fields) names.emplace_back(f.name);
  auto at = [&](std::string_view n) {
    return std::find(names.begin(), names.end(), n) - names.begin();
  };
  EXPECT_EQ(names.size(), 25u);
  EXPECT_EQ(at("workingDir"), at("args") + 1);
  EXPECT_EQ(at("tty"), 24);
  ASSERT_NE(c.Find("volumeDevices"), nullptr);
  EXPECT_STREQ(c.Find("volumeDevices")->tags.merge_key, "devicePath");
}

}  // namespace
}  // namespace allot::api

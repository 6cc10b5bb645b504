// Protobuf request bodies (what `kubectl create namespace` and `kubectl drain` send).
#include "apiserver/encoding/protobuf.h"

#include <rapidjson/document.h>

#include "api/codec/codec.h"
#include "api/codec/opaque_messages.h"
#include "api/codec/protobuf_reflect.h"
#include "api/codec/protobuf_wire.h"
#include "api/core/types.h"
#include "api/machinery/scheme.h"
#include "api/protobuf.h"
#include "api/rbac/protobuf_messages.h"
#include "apiserver/encoding/request_kinds.h"
#include "apiserver/testing/server_fixture.h"

namespace allot::apiserver {
namespace {

// Test bodies, field by field, through the wire writer (api/codec/protobuf_wire.h).
std::string Bytes(int field, std::string_view data) {
  std::string out;
  api::protobuf::Writer(out).BytesField(field, data);
  return out;
}
std::string Int(int field, uint64_t v) {
  std::string out;
  api::protobuf::Writer(out).VarintField(field, v);
  return out;
}

std::string Envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  std::string type_meta = Bytes(1, api_version) + Bytes(2, kind);
  return std::string("k8s\0", 4) + Bytes(1, type_meta) + Bytes(2, raw) + Bytes(3, "") +
         Bytes(4, "");
}

TEST(ProtobufTest, Namespace) {
  std::string labels = Bytes(11, Bytes(1, "team") + Bytes(2, "a"));
  std::string meta = Bytes(1, "team-a") + labels + Bytes(8, Int(1, 1700000000));
  auto json = ProtobufToJson(Envelope("v1", "Namespace", Bytes(1, meta) + Bytes(2, "")));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  J j(*json);
  EXPECT_EQ(j["/apiVersion"], "v1");
  EXPECT_EQ(j["/kind"], "Namespace");
  EXPECT_EQ(j["/metadata/name"], "team-a");
  EXPECT_EQ(j["/metadata/labels/team"], "a");
  EXPECT_EQ(j["/metadata/creationTimestamp"], "2023-11-14T22:13:20Z");
}

TEST(ProtobufTest, EvictionWithDeleteOptions) {
  std::string opts =
      Int(1, 30) + Bytes(2, Bytes(1, "uid-1")) + Bytes(4, "Foreground") + Bytes(5, "All");
  auto json =
      ProtobufToJson(Envelope("policy/v1", "Eviction", Bytes(1, Bytes(1, "p1")) + Bytes(2, opts)));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  J j(*json);
  EXPECT_EQ(j["/deleteOptions/gracePeriodSeconds"], "30");
  EXPECT_EQ(j["/deleteOptions/preconditions/uid"], "uid-1");
  EXPECT_EQ(j["/deleteOptions/propagationPolicy"], "Foreground");
  EXPECT_EQ(j["/deleteOptions/dryRun/0"], "All");
}

TEST(ProtobufTest, AccessReviewsAsKubectlAuthCanISendsThem) {
  std::string attrs =
      Bytes(1, "team") + Bytes(2, "create") + Bytes(5, "pods") + Bytes(6, "status") + Bytes(7, "p");
  auto json = ProtobufToJson(Envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview",
                                      Bytes(1, "") + Bytes(2, Bytes(1, attrs))));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  J j(*json);
  EXPECT_EQ(j["/kind"], "SelfSubjectAccessReview");
  EXPECT_EQ(j["/spec/resourceAttributes/namespace"], "team");
  EXPECT_EQ(j["/spec/resourceAttributes/verb"], "create");
  EXPECT_EQ(j["/spec/resourceAttributes/resource"], "pods");
  EXPECT_EQ(j["/spec/resourceAttributes/subresource"], "status");
  EXPECT_EQ(j["/spec/resourceAttributes/name"], "p");

  std::string spec = Bytes(2, Bytes(1, "/healthz") + Bytes(2, "get")) + Bytes(3, "jane") +
                     Bytes(4, "devs") + Bytes(4, "ops") + Bytes(6, "uid-1");
  json = ProtobufToJson(Envelope("authorization.k8s.io/v1", "SubjectAccessReview", Bytes(2, spec)));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  J sar(*json);
  EXPECT_EQ(sar["/spec/user"], "jane");
  EXPECT_EQ(sar["/spec/groups"], R"(["devs","ops"])");
  EXPECT_EQ(sar["/spec/uid"], "uid-1");
  EXPECT_EQ(sar["/spec/nonResourceAttributes/path"], "/healthz");

  json = ProtobufToJson(Envelope("authorization.k8s.io/v1", "SelfSubjectRulesReview",
                                 Bytes(2, Bytes(1, "kube-system"))));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(J(*json)["/spec/namespace"], "kube-system");
}

TEST(ProtobufTest, RejectsOtherKindsAndGarbage) {
  EXPECT_EQ(ProtobufToJson(Envelope("v1", "Endpoints", "")).status().code(),
            StatusCode::kUnsupportedMediaType);
  EXPECT_EQ(ProtobufToJson("nope").status().code(), StatusCode::kBadRequest);
  std::string truncated = std::string("k8s\0", 4) + "\x0a\x7f";
  EXPECT_EQ(ProtobufToJson(truncated).status().code(), StatusCode::kBadRequest);
}

// RBAC objects as `kubectl create role|rolebinding` sends them, built field by field from
// rbac/v1/generated.proto.
TEST(ProtobufTest, RbacAsKubectlCreateSendsIt) {
  std::string rule = Bytes(1, "get") + Bytes(1, "list") + Bytes(2, "") + Bytes(3, "pods") +
                     Bytes(4, "p1") + Bytes(5, "/healthz");
  auto json =
      ProtobufToJson(Envelope("rbac.authorization.k8s.io/v1", "Role",
                              Bytes(1, Bytes(1, "reader") + Bytes(3, "team")) + Bytes(2, rule)));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  J role(*json);
  EXPECT_EQ(role["/kind"], "Role");
  EXPECT_EQ(role["/metadata/namespace"], "team");
  EXPECT_EQ(role["/rules/0/verbs"], R"(["get","list"])");
  EXPECT_EQ(role["/rules/0/apiGroups"], R"([""])");
  EXPECT_EQ(role["/rules/0/resources/0"], "pods");
  EXPECT_EQ(role["/rules/0/resourceNames/0"], "p1");
  EXPECT_EQ(role["/rules/0/nonResourceURLs/0"], "/healthz");

  std::string selector = Bytes(1, Bytes(1, "agg") + Bytes(2, "true"));  // matchLabels
  json = ProtobufToJson(Envelope("rbac.authorization.k8s.io/v1", "ClusterRole",
                                 Bytes(1, Bytes(1, "agg")) + Bytes(3, Bytes(1, selector))));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(J(*json)["/aggregationRule/clusterRoleSelectors/0/matchLabels/agg"], "true");

  std::string subject = Bytes(1, "User") + Bytes(2, "rbac.authorization.k8s.io") + Bytes(3, "jane");
  std::string ref = Bytes(1, "rbac.authorization.k8s.io") + Bytes(2, "Role") + Bytes(3, "reader");
  json = ProtobufToJson(Envelope("rbac.authorization.k8s.io/v1", "RoleBinding",
                                 Bytes(1, Bytes(1, "b")) + Bytes(2, subject) + Bytes(3, ref)));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  J binding(*json);
  EXPECT_EQ(binding["/subjects/0/kind"], "User");
  EXPECT_EQ(binding["/subjects/0/name"], "jane");
  EXPECT_EQ(binding["/roleRef/kind"], "Role");
  EXPECT_EQ(binding["/roleRef/name"], "reader");
  // What the JSON decoder then makes of it is the RBAC kind itself.
  api::DecodeOptions opts;
  opts.scheme = &api::Scheme::Default();
  EXPECT_TRUE(api::DecodeJson(*json, opts).ok());
}

// A DeleteOptions body on its own (`kubectl delete` sends one in protobuf), keeping a zero grace
// period and orphanDependents=false, which mean something when set.
TEST(ProtobufTest, DeleteOptionsKeepsTheZerosThatWereSent) {
  auto json = ProtobufToJson(
      Envelope("meta.k8s.io/v1", "DeleteOptions", Int(1, 0) + Int(3, 0) + Bytes(4, "Orphan")));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  J j(*json);
  EXPECT_EQ(j["/kind"], "DeleteOptions");
  EXPECT_EQ(j["/gracePeriodSeconds"], "0");
  EXPECT_EQ(j["/orphanDependents"], "false");
  EXPECT_EQ(j["/propagationPolicy"], "Orphan");
}

template <class T>
void ExpectEveryFieldNumbered() {
  std::vector<std::string> missing;
  std::vector<const void*> seen;
  api::protobuf::CollectMissing<T>(missing, seen);
  EXPECT_TRUE(missing.empty()) << ::testing::PrintToString(missing);
}

// Every field the request kinds model has a number, at any depth: nothing is dropped unread.
TEST(ProtobufTest, EveryFieldOfTheRequestKindsHasANumber) {
  ExpectEveryFieldNumbered<request_kinds::Eviction>();
  ExpectEveryFieldNumbered<request_kinds::DeleteOptions>();
  ExpectEveryFieldNumbered<request_kinds::AccessReview>();
  ExpectEveryFieldNumbered<request_kinds::SelfSubjectRulesReview>();
  ExpectEveryFieldNumbered<request_kinds::SelfSubjectReview>();
  ExpectEveryFieldNumbered<api::Role>();
  ExpectEveryFieldNumbered<api::ClusterRole>();
  ExpectEveryFieldNumbered<api::RoleBinding>();
  ExpectEveryFieldNumbered<api::ClusterRoleBinding>();
}

using ProtobufServerTest = ApiServerTest;

constexpr const char* kProtobufFirst = "application/vnd.kubernetes.protobuf,application/json";

std::unique_ptr<api::Object> DecodePod(std::string_view body) {
  auto obj = api::DecodeProtobufObject(api::Pod::Type(), body);
  EXPECT_TRUE(obj.ok()) << obj.status().ToString();
  return obj.ok() ? std::move(obj).value() : nullptr;
}

TEST_F(ProtobufServerTest, CreateNamespaceLikeKubectl) {
  std::string body = Envelope("v1", "Namespace", Bytes(1, Bytes(1, "team-b")) + Bytes(2, ""));
  auto res =
      Post("/api/v1/namespaces?fieldManager=kubectl-create&fieldValidation=Strict", body,
           {{"Content-Type", "application/vnd.kubernetes.protobuf"}, {"Accept", kProtobufFirst}});
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(res.Header("Content-Type"), "application/vnd.kubernetes.protobuf");
  auto ns = api::DecodeProtobufObject(api::Namespace::Type(), res.body);
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  EXPECT_EQ((*ns)->metadata.name, "team-b");
  EXPECT_FALSE((*ns)->metadata.uid.empty());
}

TEST_F(ProtobufServerTest, GetAndListAnswerProtobufWhenAskedFirst) {
  CreatePod("a");
  auto get = Get(std::string(kPods) + "/a", {{"Accept", kProtobufFirst}});
  ASSERT_EQ(get.status, 200);
  EXPECT_EQ(get.Header("Content-Type"), "application/vnd.kubernetes.protobuf");
  auto pod = DecodePod(get.body);
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->metadata.name, "a");
  EXPECT_EQ(static_cast<const api::Pod&>(*pod).spec.containers.at(0).image, "busybox");

  CreatePod("b");
  auto list = Get(kPods, {{"Accept", kProtobufFirst}});
  ASSERT_EQ(list.status, 200);
  auto items = api::DecodeProtobufList(api::Pod::Type(), list.body);
  ASSERT_TRUE(items.ok()) << items.status().ToString();
  ASSERT_EQ(items->items.size(), 2u);
  EXPECT_FALSE(items->meta.resourceVersion.empty());
  // JSON first, or no protobuf at all, keeps JSON.
  EXPECT_EQ(Get(kPods, {{"Accept", "application/json,application/vnd.kubernetes.protobuf"}})
                .Header("Content-Type"),
            "application/json");
}

TEST_F(ProtobufServerTest, CreateAPodInProtobuf) {
  auto obj = api::DecodeJson(PodJson("p", R"("schedulerName":"other")"),
                             {.scheme = &api::Scheme::Default()});
  ASSERT_TRUE(obj.ok());
  std::string message, body;
  ASSERT_TRUE(api::EncodeProtobufMessage(*obj->object, message));
  api::AppendProtobufEnvelope(api::Pod::Type(), message, body);
  auto res =
      Post(kPods, body,
           {{"Content-Type", "application/vnd.kubernetes.protobuf"}, {"Accept", kProtobufFirst}});
  ASSERT_EQ(res.status, 201) << res.body;
  auto created = DecodePod(res.body);
  ASSERT_NE(created, nullptr);
  EXPECT_EQ(static_cast<const api::Pod&>(*created).spec.schedulerName, "other");
  J stored(Get(std::string(kPods) + "/p").body);
  EXPECT_EQ(stored["/spec/containers/0/image"], "busybox");
}

// A probe is kept as JSON text and travels as its message (api/codec/opaque_messages.h).
TEST_F(ProtobufServerTest, APodWithAProbeIsAnsweredInProtobuf) {
  auto res = Post(kPods, PodJson("probed", {}, {})
                             .replace(PodJson("probed", {}, {}).find("\"image\""), 0,
                                      R"("livenessProbe":{"exec":{"command":["true"]}},)"));
  ASSERT_EQ(res.status, 201) << res.body;
  auto only =
      Get(std::string(kPods) + "/probed", {{"Accept", "application/vnd.kubernetes.protobuf"}});
  ASSERT_EQ(only.status, 200);
  EXPECT_EQ(only.Header("Content-Type"), "application/vnd.kubernetes.protobuf");
  auto pod = DecodePod(only.body);
  ASSERT_NE(pod, nullptr);
  // With the defaults kube-apiserver gives a probe (api/codec/opaque_messages.h).
  EXPECT_EQ(static_cast<const api::Pod&>(*pod).spec.containers.at(0).rare->livenessProbe.json,
            R"({"exec":{"command":["true"]},"timeoutSeconds":1,"periodSeconds":10,)"
            R"("successThreshold":1,"failureThreshold":3})");
}

// resource.k8s.io/v1beta1 is not the stored shape: its protobuf is its own messages, read into
// and written from its JSON.
constexpr const char* kV1beta1Claims =
    "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims";
constexpr const char* kV1beta1Claim = "k8s.io.api.resource.v1beta1.ResourceClaim";

std::string V1beta1ClaimBody(std::string_view name) {
  const std::string json = R"({"metadata":{"name":")" + std::string(name) +
                           R"("},"spec":{"devices":{"requests":[)"
                           R"({"name":"gpu","deviceClassName":"gpu.example.com"}]}}})";
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  std::string message;
  EXPECT_TRUE(api::protobuf::EncodeOpaqueMessage(
      *api::protobuf::FindOpaqueMessage(kV1beta1Claim), doc, message));
  return Envelope("resource.k8s.io/v1beta1", "ResourceClaim", message);
}

// The JSON of a v1beta1 ResourceClaim's message in a protobuf envelope; {} on failure.
J V1beta1ClaimJson(std::string_view body, std::string_view kind = "ResourceClaim") {
  auto env = api::ParseProtobufEnvelope(body);
  EXPECT_TRUE(env.ok());
  if (!env.ok()) return J("{}");
  EXPECT_EQ(env->api_version, "resource.k8s.io/v1beta1");
  EXPECT_EQ(env->kind, kind);
  api::protobuf::DecodeState s;
  std::string json;
  const api::protobuf::OpaqueMessage* m = api::protobuf::FindOpaqueMessage(kV1beta1Claim);
  EXPECT_TRUE(api::protobuf::ReadOpaque(env->raw, *m, json, s)) << s.ctx.error();
  return J(json.empty() ? "{}" : json);
}

TEST_F(ProtobufServerTest, ResourceV1beta1TravelsAsItsOwnMessages) {
  auto res = Post(kV1beta1Claims, V1beta1ClaimBody("c"),
                  {{"Content-Type", "application/vnd.kubernetes.protobuf"},
                   {"Accept", "application/vnd.kubernetes.protobuf"}});
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(res.Header("Content-Type"), "application/vnd.kubernetes.protobuf");
  J created = V1beta1ClaimJson(res.body);
  EXPECT_EQ(created["/metadata/name"], "c");
  EXPECT_EQ(created["/spec/devices/requests/0/deviceClassName"], "gpu.example.com");
  EXPECT_EQ(created["/spec/devices/requests/0/allocationMode"], "ExactCount");  // v1's default
  // Stored as v1.
  J v1(Get("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c").body);
  EXPECT_EQ(v1["/spec/devices/requests/0/exactly/deviceClassName"], "gpu.example.com");

  auto list = Get(kV1beta1Claims, {{"Accept", "application/vnd.kubernetes.protobuf"}});
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Header("Content-Type"), "application/vnd.kubernetes.protobuf");
  auto env = api::ParseProtobufEnvelope(list.body);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->api_version, "resource.k8s.io/v1beta1");
  EXPECT_EQ(env->kind, "ResourceClaimList");

  // Another kind, or another version, in the envelope is a 400; garbage too.
  std::string wrong = V1beta1ClaimBody("d");
  wrong.replace(wrong.find("v1beta1"), 7, "v1beta2");
  EXPECT_EQ(Post(kV1beta1Claims, wrong,
                 {{"Content-Type", "application/vnd.kubernetes.protobuf"}}).status, 400);
  EXPECT_EQ(Post(kV1beta1Claims, Envelope("resource.k8s.io/v1beta1", "ResourceClaim", "\xff"),
                 {{"Content-Type", "application/vnd.kubernetes.protobuf"}}).status, 400);
}

class ProtobufWatchTest : public ApiServerTest {
 protected:
  // As Allot's client asks: protobuf, watching on in JSON after a 406 (fallback=json).
  std::unique_ptr<allot::testing::HttpStream> Watch(
      const std::string& query,
      std::string accept = "application/vnd.kubernetes.protobuf;fallback=json, application/json",
      std::string_view path = kPods) {
    auto s = client_->Stream(std::string(path) + "?watch=true" + query, {{"Accept", accept}});
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  // The next frame's event type and object envelope.
  std::pair<std::string, std::string> Next(allot::testing::HttpStream& s) {
    auto length = s.ReadBytes(4, std::chrono::seconds(10));
    EXPECT_TRUE(length.ok()) << length.status().ToString();
    if (!length.ok()) return {};
    uint32_t n = 0;
    for (char c : *length) n = n << 8 | static_cast<uint8_t>(c);
    auto frame = s.ReadBytes(n, std::chrono::seconds(10));
    EXPECT_TRUE(frame.ok());
    if (!frame.ok()) return {};
    auto ev = api::ParseProtobufWatchEvent(*frame);
    EXPECT_TRUE(ev.ok());
    if (!ev.ok()) return {};
    return {std::string(ev->type), std::string(ev->object)};
  }
};

std::string ContentType(allot::testing::HttpStream& s) {
  for (const auto& [k, v] : s.headers()) {
    if (k == "Content-Type") return v;
  }
  return "";
}

// client-go asks for protobuf without saying it watches on in JSON after a 406: it gets JSON
// watches of kinds whose objects protobuf may refuse, protobuf for the others, which today are
// all (Protobuf.TheCatalogOfMessagesKeptAsJsonIsWhole): pods too.
TEST_F(ProtobufWatchTest, ClientGoGetsProtobufWatchesOnlyWhereNothingIsRefused) {
  auto pods = Watch("", "application/vnd.kubernetes.protobuf, */*");
  ASSERT_NE(pods, nullptr);
  EXPECT_EQ(ContentType(*pods), "application/vnd.kubernetes.protobuf;stream=watch");
  auto claims = Watch("", "application/vnd.kubernetes.protobuf, */*",
                      "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims");
  ASSERT_NE(claims, nullptr);
  EXPECT_EQ(ContentType(*claims), "application/vnd.kubernetes.protobuf;stream=watch");
  auto only = Watch("", "application/vnd.kubernetes.protobuf");
  ASSERT_NE(only, nullptr);
  EXPECT_EQ(ContentType(*only), "application/vnd.kubernetes.protobuf;stream=watch");
}

TEST_F(ProtobufWatchTest, EventsAndBookmarksAreFrames) {
  CreatePod("a");
  auto w = Watch(
      "&allowWatchBookmarks=true&sendInitialEvents=true"
      "&resourceVersionMatch=NotOlderThan");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(ContentType(*w), "application/vnd.kubernetes.protobuf;stream=watch");
  auto [type, object] = Next(*w);
  EXPECT_EQ(type, "ADDED");
  auto pod = DecodePod(object);
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->metadata.name, "a");
  auto [bookmark, marker] = Next(*w);
  EXPECT_EQ(bookmark, "BOOKMARK");
  auto end = DecodePod(marker);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->metadata.annotations.at("k8s.io/initial-events-end"), "true");
  EXPECT_FALSE(end->metadata.resourceVersion.empty());

  CreatePod("b");
  auto [added, b] = Next(*w);
  EXPECT_EQ(added, "ADDED");
  EXPECT_EQ(DecodePod(b)->metadata.name, "b");

  // A pod with a probe is a frame like any other.
  auto res = Post(kPods, PodJson("probed").replace(PodJson("probed").find("\"image\""), 0,
                                                   R"("livenessProbe":{"exec":{}},)"));
  ASSERT_EQ(res.status, 201) << res.body;
  auto [probed_type, probed] = Next(*w);
  EXPECT_EQ(probed_type, "ADDED");
  auto probed_pod = DecodePod(probed);
  ASSERT_NE(probed_pod, nullptr);
  EXPECT_EQ(probed_pod->metadata.name, "probed");
}

// A watch of a served version carries its messages, under its own apiVersion.
TEST_F(ProtobufWatchTest, AServedVersionsFramesNameIt) {
  auto w = Watch("", "application/vnd.kubernetes.protobuf", kV1beta1Claims);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(ContentType(*w), "application/vnd.kubernetes.protobuf;stream=watch");
  ASSERT_EQ(Post(kV1beta1Claims, V1beta1ClaimBody("watched"),
                 {{"Content-Type", "application/vnd.kubernetes.protobuf"}}).status, 201);
  auto [type, object] = Next(*w);
  EXPECT_EQ(type, "ADDED");
  EXPECT_EQ(V1beta1ClaimJson(object)["/metadata/name"], "watched");
}

}  // namespace
}  // namespace allot::apiserver

// Protobuf request bodies (what `kubectl create namespace` and `kubectl drain` send).
#include "apiserver/protobuf.h"

#include "apiserver/testing/server_fixture.h"

namespace allot::apiserver {
namespace {

// A tiny protobuf encoder for building test bodies.
std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string Bytes(int field, std::string_view data) {
  return Varint(static_cast<uint64_t>(field) << 3 | 2) + Varint(data.size()) + std::string(data);
}
std::string Int(int field, uint64_t v) {
  return Varint(static_cast<uint64_t>(field) << 3) + Varint(v);
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
  EXPECT_EQ(ProtobufToJson(Envelope("v1", "Pod", "")).status().code(),
            StatusCode::kUnsupportedMediaType);
  EXPECT_EQ(ProtobufToJson("nope").status().code(), StatusCode::kBadRequest);
  std::string truncated = std::string("k8s\0", 4) + "\x0a\x7f";
  EXPECT_EQ(ProtobufToJson(truncated).status().code(), StatusCode::kBadRequest);
}

using ProtobufServerTest = ApiServerTest;

TEST_F(ProtobufServerTest, CreateNamespaceLikeKubectl) {
  std::string body = Envelope("v1", "Namespace", Bytes(1, Bytes(1, "team-b")) + Bytes(2, ""));
  auto res = Post("/api/v1/namespaces?fieldManager=kubectl-create&fieldValidation=Strict", body,
                  {{"Content-Type", "application/vnd.kubernetes.protobuf"},
                   {"Accept", "application/vnd.kubernetes.protobuf,application/json"}});
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(res.Header("Content-Type"), "application/json");
  EXPECT_EQ(J(res.body)["/metadata/name"], "team-b");
}

}  // namespace
}  // namespace allot::apiserver

// DefaultOpaque: the defaults kube-apiserver gives the messages Allot keeps as JSON text, read
// from the catalog's sixth column.
#include <gtest/gtest.h>

#include <string>

#include "api/codec/opaque_catalog.h"
#include "api/codec/opaque_messages.h"

namespace allot::api::protobuf {
namespace {

const OpaqueMessage& Message(std::string_view short_name) {
  const OpaqueMessage* m = FindOpaqueMessage("k8s.io.api.core.v1." + std::string(short_name));
  EXPECT_NE(m, nullptr) << short_name;
  static const OpaqueMessage kNone;
  return m ? *m : kNone;
}

std::string Defaulted(std::string_view message, std::string json) {
  DefaultOpaque(Message(message), json);
  return json;
}

TEST(OpaqueDefaults, AProbeGetsSetDefaultsProbesAndItsHandlersInGoOrder) {
  EXPECT_EQ(Defaulted("Probe", R"({"periodSeconds":0,"httpGet":{"port":80}})"),
            R"({"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"timeoutSeconds":1,)"
            R"("periodSeconds":10,"successThreshold":1,"failureThreshold":3})");
  // What the request set stays; a zero (for a field Go holds by value) is unset, as in Go.
  EXPECT_EQ(Defaulted("Probe", R"({"exec":{"command":["true"]},"timeoutSeconds":5,)"
                               R"("failureThreshold":1,"successThreshold":null})"),
            R"({"exec":{"command":["true"]},"timeoutSeconds":5,"periodSeconds":10,)"
            R"("successThreshold":1,"failureThreshold":1})");
  EXPECT_EQ(Defaulted("Probe", R"({"grpc":{"port":9000}})"),
            R"({"grpc":{"port":9000,"service":""},"timeoutSeconds":1,"periodSeconds":10,)"
            R"("successThreshold":1,"failureThreshold":3})");
}

TEST(OpaqueDefaults, APointerKeepsAnExplicitZero) {
  EXPECT_EQ(Defaulted("SecretVolumeSource", R"({"secretName":"s"})"),
            R"({"secretName":"s","defaultMode":420})");
  EXPECT_EQ(Defaulted("SecretVolumeSource", R"({"secretName":"s","defaultMode":0})"),
            R"({"secretName":"s","defaultMode":0})");
  EXPECT_EQ(Defaulted("HostPathVolumeSource", R"({"path":"/data"})"),
            R"({"path":"/data","type":""})");
}

TEST(OpaqueDefaults, DefaultsReachListsAndNestedMessages) {
  EXPECT_EQ(Defaulted("ProjectedVolumeSource",
                      R"({"sources":[{"serviceAccountToken":{"path":"token"}},)"
                      R"({"downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"x"}}]}}]})"),
            R"({"sources":[{"serviceAccountToken":{"expirationSeconds":3600,"path":"token"}},)"
            R"({"downwardAPI":{"items":[{"path":"n","fieldRef":{"apiVersion":"v1",)"
            R"("fieldPath":"x"}}]}}],"defaultMode":420})");
  EXPECT_EQ(Defaulted("EnvVarSource", R"({"fileKeyRef":{"path":"p","key":"k","volumeName":"v"}})"),
            R"({"fileKeyRef":{"volumeName":"v","path":"p","key":"k","optional":false}})");
}

TEST(OpaqueDefaults, AnImageVolumesPullPolicyFollowsItsReference) {
  EXPECT_EQ(Defaulted("ImageVolumeSource", R"({"reference":"registry:5000/model"})"),
            R"({"reference":"registry:5000/model","pullPolicy":"Always"})");
  EXPECT_EQ(Defaulted("ImageVolumeSource", R"({"reference":"model:v2"})"),
            R"({"reference":"model:v2","pullPolicy":"IfNotPresent"})");
  EXPECT_EQ(Defaulted("ImageVolumeSource", R"({"reference":"model:v2","pullPolicy":"Never"})"),
            R"({"reference":"model:v2","pullPolicy":"Never"})");
}

TEST(OpaqueDefaults, NothingToAddLeavesTheTextAsItWas) {
  std::string probe = R"({"failureThreshold":3,"exec":{},"timeoutSeconds":1,)"
                      R"("periodSeconds":10,"successThreshold":1})";
  std::string before = probe;
  EXPECT_FALSE(DefaultOpaque(Message("Probe"), probe));
  EXPECT_EQ(probe, before);
  // Idempotent: what it wrote once it does not change again.
  std::string secret = Defaulted("SecretVolumeSource", "{}");
  EXPECT_FALSE(DefaultOpaque(Message("SecretVolumeSource"), secret));
  // No defaults at all: not even parsed.
  EXPECT_FALSE(OpaqueHasDefaults(Message("EmptyDirVolumeSource")));
  std::string not_json = "{not json";
  EXPECT_FALSE(DefaultOpaque(Message("EmptyDirVolumeSource"), not_json));
  EXPECT_FALSE(DefaultOpaque(Message("Probe"), not_json));
  EXPECT_EQ(not_json, "{not json");
  EXPECT_TRUE(OpaqueHasDefaults(Message("VolumeSource")));  // through its secret, ...
  EXPECT_TRUE(OpaqueHasDefaults(Message("Lifecycle")));     // through httpGet
}

TEST(OpaqueDefaults, MembersTheMessageLacksStayLast) {
  EXPECT_EQ(Defaulted("SecretVolumeSource", R"({"extra":1,"secretName":"s"})"),
            R"({"secretName":"s","defaultMode":420,"extra":1})");
}

TEST(OpaqueDefaults, TheCatalogRefusesADefaultOfTheWrongType) {
  const char* kGood = "m.A\t1\tn\tint32\tomitempty\t7\n"
                      "m.A\t2\timage\tstring\tomitempty\n"
                      "m.A\t3\tpolicy\tstring\tomitempty\t@pullPolicyOf:image\n";
  OpaqueCatalog good = ParseOpaqueCatalog(kGood);
  EXPECT_EQ(good.problems, std::vector<std::string>{});
  EXPECT_TRUE(good.messages.at("m.A").has_defaults);
  EXPECT_EQ(good.messages.at("m.A").fields[0].default_json, "7");
  OpaqueCatalog bad = ParseOpaqueCatalog("m.A\t1\tn\tint32\tomitempty\t\"seven\"\n"
                                         "m.A\t2\tl\t[]string\tomitempty\t\"x\"\n"
                                         "m.A\t3\tp\tstring\tomitempty\t@pullPolicyOf:nope\n");
  EXPECT_EQ(bad.problems, (std::vector<std::string>{"m.A\t1\tn\tint32\tomitempty\t\"seven\"",
                                                    "m.A\t2\tl\t[]string\tomitempty\t\"x\"",
                                                    "m.A.p: no string field nope"}));
}

}  // namespace
}  // namespace allot::api::protobuf

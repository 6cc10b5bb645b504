// ConfigMap, Secret and ServiceAccount: codec, defaulting, validation and registration.
#include "api/core/config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/machinery/resources.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::ExpectRoundTrip;

template <class T>
T Named(std::string name) {
  T obj;
  obj.metadata.name = std::move(name);
  obj.metadata.namespace_ = "default";
  return obj;
}

std::vector<std::string> Errors(const ConfigMap& cm) {
  FieldErrors errs;
  ValidateConfigMap(cm, errs);
  return errs.Messages();
}

std::vector<std::string> Errors(const Secret& s) {
  FieldErrors errs;
  ValidateSecret(s, errs);
  return errs.Messages();
}

TEST(ConfigTest, RoundTripsAndRegisters) {
  ExpectRoundTrip(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},)"
                  R"("immutable":true,"data":{"a":"b"},"binaryData":{"bin":"AAEC"}})");
  auto secret = ExpectRoundTrip(R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"},)"
                                R"("data":{"password":"aHVudGVyMg=="},"type":"Opaque"})");
  ASSERT_NE(secret, nullptr);
  EXPECT_EQ(static_cast<const Secret&>(*secret).data.at("password").data, "hunter2");
  ExpectRoundTrip(R"({"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"sa"},)"
                  R"("secrets":[{"name":"t"}],"automountServiceAccountToken":false})");
  const ResourceRegistry& reg = ResourceRegistry::Default();
  EXPECT_EQ(reg.Find("", "v1", "configmaps")->short_names, std::vector<std::string>{"cm"});
  EXPECT_EQ(reg.Find("", "v1", "serviceaccounts")->short_names, std::vector<std::string>{"sa"});
  EXPECT_FALSE(reg.Find("", "v1", "secrets")->counts_generation);
}

TEST(ConfigTest, StringDataIsMergedIntoData) {
  Secret s = Named<Secret>("s");
  s.data["a"] = Bytes{"old"};
  s.stringData = {{"a", "new"}, {"b", "two"}};
  DefaultSecret(s);
  EXPECT_EQ(s.type, "Opaque");
  EXPECT_TRUE(s.stringData.empty());
  EXPECT_EQ(s.data.at("a").data, "new");
  EXPECT_EQ(s.data.at("b").data, "two");
}

TEST(ConfigTest, KeysAndSizes) {
  ConfigMap cm = Named<ConfigMap>("c");
  cm.data = {{"ok.key_1-x", "v"}, {"bad key", "v"}, {"..x", "v"}, {"dup", "v"}};
  cm.binaryData["dup"] = Bytes{"b"};
  EXPECT_EQ(Errors(cm),
            (std::vector<std::string>{
                "data[..x]: Invalid value: \"..x\": must not start with '..'",
                "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of "
                "alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
                "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
                "data[dup]: Invalid value: \"dup\": duplicate of key present in binaryData"}));
  ConfigMap big = Named<ConfigMap>("c");
  big.data["a"] = std::string(kMaxConfigDataBytes + 1, 'x');
  EXPECT_EQ(Errors(big),
            std::vector<std::string>{"Too long: may not be more than 1048576 bytes"});
}

TEST(ConfigTest, ImmutableDataCannotChange) {
  ConfigMap old = Named<ConfigMap>("c");
  old.immutable = true;
  old.data["a"] = "1";
  ConfigMap now = old;
  now.data["a"] = "2";
  now.immutable = false;
  FieldErrors errs;
  ValidateConfigMapUpdate(now, old, errs);
  EXPECT_EQ(errs.Messages(),
            (std::vector<std::string>{
                "immutable: Forbidden: field is immutable when `immutable` is set",
                "data: Forbidden: field is immutable when `immutable` is set"}));
}

TEST(ConfigTest, SecretTypesRequireTheirKeys) {
  Secret tls = Named<Secret>("t");
  tls.type = "kubernetes.io/tls";
  tls.data["tls.crt"] = Bytes{"c"};
  EXPECT_EQ(Errors(tls), std::vector<std::string>{"data[tls.key]: Required value"});
  Secret docker = Named<Secret>("d");
  docker.type = "kubernetes.io/dockerconfigjson";
  docker.data[".dockerconfigjson"] = Bytes{"{not json"};
  EXPECT_EQ(Errors(docker),
            std::vector<std::string>{"data[.dockerconfigjson]: Invalid value: \"<secret contents "
                                     "redacted>\": invalid JSON in secret data"});
  Secret token = Named<Secret>("k");
  token.type = "kubernetes.io/service-account-token";
  EXPECT_EQ(Errors(token), std::vector<std::string>{
                               "metadata.annotations[kubernetes.io/service-account.name]: "
                               "Required value"});
  Secret old = Named<Secret>("s");
  old.type = "Opaque";
  Secret changed = old;
  changed.type = "kubernetes.io/basic-auth";
  FieldErrors errs;
  ValidateSecretUpdate(changed, old, errs);
  EXPECT_EQ(errs.Messages(),
            std::vector<std::string>{
                "type: Invalid value: \"kubernetes.io/basic-auth\": field is immutable"});
}

}  // namespace
}  // namespace allot::api

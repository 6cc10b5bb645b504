#include "client/kubeconfig.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/base64.h"
#include "pki/pki.h"

namespace allot::client {
namespace {

namespace fs = std::filesystem;

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("allot-kubeconfig-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(KubeconfigTest, WhatAllotWritesReadsBack) {
  std::string path =
      Write("admin.kubeconfig", KubeconfigYaml("allot", "https://127.0.0.1:6443", "CA PEM",
                                               "system:admin", "CERT PEM", "KEY PEM"));
  auto cfg = LoadKubeconfig({path}, "");
  ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
  EXPECT_EQ(cfg->server, "https://127.0.0.1:6443");
  EXPECT_EQ(cfg->ca_pem, "CA PEM");
  EXPECT_EQ(cfg->cert_pem, "CERT PEM");
  EXPECT_EQ(cfg->key_pem, "KEY PEM");
  EXPECT_EQ(cfg->source, "kubeconfig " + path);
}

TEST_F(KubeconfigTest, ContextsFilesTokensAndMerging) {
  Write("ca.crt", "CA FROM FILE");
  Write("token", "tok-123\n");
  std::string a = Write("a", R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c1
  cluster: {server: "https://one:6443", certificate-authority: ca.crt, tls-server-name: api.one}
- name: c2
  cluster: {server: "https://two:6443", insecure-skip-tls-verify: true}
users:
- name: u1
  user: {tokenFile: token}
- name: u2
  user: {token: literal}
contexts:
- name: dev
  context: {cluster: c1, user: u1, namespace: team}
- name: prod
  context: {cluster: c2, user: u2}
)");
  auto dev = LoadKubeconfig({a}, "");
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_EQ(dev->server, "https://one:6443");
  EXPECT_EQ(dev->ca_pem, "CA FROM FILE");  // relative to the kubeconfig's directory
  EXPECT_EQ(dev->token, "tok-123");
  EXPECT_EQ(dev->tls_server_name, "api.one");
  EXPECT_EQ(dev->namespace_, "team");
  auto prod = LoadKubeconfig({a}, "prod");
  ASSERT_TRUE(prod.ok());
  EXPECT_TRUE(prod->insecure_skip_verify);
  EXPECT_EQ(prod->token, "literal");
  // A second file names "dev" too and sets another current context: the first file wins both.
  std::string b = Write("b", R"(current-context: prod
contexts:
- name: dev
  context: {cluster: c2, user: u2}
)");
  auto merged = LoadKubeconfig({(dir_ / "missing").string(), a, b}, "");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->server, "https://one:6443");
}

TEST_F(KubeconfigTest, BadKubeconfigsSayWhy) {
  std::string none = (dir_ / "none").string();
  EXPECT_NE(LoadKubeconfig({none}, "").status().message().find("kubeconfig \"" + none + "\""),
            std::string::npos);
  std::string bad = Write("bad", "clusters: [unclosed");
  EXPECT_EQ(LoadKubeconfig({bad}, "").status().code(), StatusCode::kBadRequest);
  std::string k = Write("k", R"(current-context: x
contexts:
- name: x
  context: {cluster: nowhere, user: u}
- name: why
  context: {cluster: c, user: nobody}
clusters:
- name: c
  cluster: {server: "https://c", certificate-authority-data: "not base64!"}
)");
  EXPECT_EQ(LoadKubeconfig({k}, "").status().message(),
            "kubeconfig \"" + k + "\": cluster \"nowhere\" of context \"x\" not found");
  EXPECT_EQ(LoadKubeconfig({k}, "z").status().message(),
            "kubeconfig \"" + k + "\": context \"z\" not found");
  EXPECT_EQ(LoadKubeconfig({k}, "why").status().message(),
            "kubeconfig \"" + k + "\": certificate-authority-data: invalid base64");
  // (A context named y would be the boolean true in YAML 1.1, as kubectl reads it too.)
  std::string nouser = Write("nouser", R"(current-context: why
contexts: [{name: why, context: {cluster: c, user: nobody}}]
clusters: [{name: c, cluster: {server: "https://c"}}]
)");
  EXPECT_EQ(LoadKubeconfig({nouser}, "").status().message(),
            "kubeconfig \"" + nouser + "\": user \"nobody\" of context \"why\" not found");
}

// Found by the credentials fuzzer: a list entry that is a scalar, not a mapping, is skipped
// (it names nothing), and the context that needs it is reported missing.
TEST_F(KubeconfigTest, ScalarEntriesAreSkipped) {
  std::string k = Write("k", R"(current-context: dev
contexts: [9, {name: dev, context: {cluster: c, user: u}}]
clusters: [9, "c"]
users: [{name: u, user: {token: t}}]
)");
  EXPECT_EQ(LoadKubeconfig({k}, "").status().message(),
            "kubeconfig \"" + k + "\": cluster \"c\" of context \"dev\" not found");
}

TEST_F(KubeconfigTest, InClusterConfiguration) {
  Write("token", "sa-token\n");
  Write("ca.crt", "CLUSTER CA");
  ::setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto cfg = InClusterConfig(dir_.string());
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
  EXPECT_EQ(cfg->server, "https://10.0.0.1:443");
  EXPECT_EQ(cfg->token, "sa-token");
  EXPECT_EQ(cfg->ca_pem, "CLUSTER CA");
  EXPECT_FALSE(InClusterConfig(dir_.string()).ok());  // the variables are gone
}

TEST_F(KubeconfigTest, ResolvePrefersTheFlagThenTheEnvironmentThenServer) {
  std::string path = Write("k", KubeconfigYaml("allot", "https://127.0.0.1:1", "", "u", "", ""));
  auto flag = ResolveRestConfig(path, "", "");
  ASSERT_TRUE(flag.ok()) << flag.status().ToString();
  EXPECT_EQ(flag->server, "https://127.0.0.1:1");
  auto overridden = ResolveRestConfig(path, "", "https://127.0.0.1:2");
  ASSERT_TRUE(overridden.ok());
  EXPECT_EQ(overridden->server, "https://127.0.0.1:2");
  ::setenv("KUBECONFIG", path.c_str(), 1);
  auto env = ResolveRestConfig("", "", "");
  ::unsetenv("KUBECONFIG");
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->source, "kubeconfig " + path);
  auto plain = ResolveRestConfig("", "", "http://127.0.0.1:3");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->server, "http://127.0.0.1:3");
  EXPECT_FALSE(ResolveRestConfig("", "", "").ok());
}

}  // namespace
}  // namespace allot::client

#include "pki/pki.h"

#include <gtest/gtest.h>

#include <ctime>

namespace allot::pki {
namespace {

constexpr std::chrono::hours kYear{24 * 365};

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

TEST(Pki, IssuesServingAndClientCertificatesThatVerifyAgainstTheirCA) {
  auto ca = NewCA("allot-ca", kYear * 10);
  ASSERT_TRUE(ca.ok()) << ca.status().ToString();
  auto ca_info = Inspect(ca->cert_pem);
  ASSERT_TRUE(ca_info.ok());
  EXPECT_TRUE(ca_info->is_ca);
  EXPECT_EQ(ca_info->common_name, "allot-ca");

  auto server = Issue(*ca, {.common_name = "allot-apiserver",
                            .dns_names = {"localhost", "host.example"},
                            .ip_addresses = {"127.0.0.1", "::1"},
                            .server = true});
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto info = Inspect(server->cert_pem);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->is_ca);
  EXPECT_EQ(info->dns_names, (std::vector<std::string>{"localhost", "host.example"}));
  EXPECT_EQ(info->ip_addresses, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_LE(info->not_before, Now());
  EXPECT_GT(info->not_after, Now() + 364 * 24 * 3600);
  EXPECT_TRUE(Verify(server->cert_pem, ca->cert_pem, Now()).ok());
  EXPECT_TRUE(MatchesKey(server->cert_pem, server->key_pem).ok());

  auto admin = Issue(
      *ca, {.common_name = "jane", .organizations = {"system:masters", "dev"}, .client = true});
  ASSERT_TRUE(admin.ok());
  info = Inspect(admin->cert_pem);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->common_name, "jane");
  EXPECT_EQ(info->organizations, (std::vector<std::string>{"system:masters", "dev"}));
  EXPECT_TRUE(Verify(admin->cert_pem, ca->cert_pem, Now()).ok());
}

TEST(Pki, VerifyRejectsAnotherCAAndExpiredCertificates) {
  auto ca = NewCA("one", kYear);
  auto other = NewCA("two", kYear);
  ASSERT_TRUE(ca.ok() && other.ok());
  auto cert = Issue(*ca, {.common_name = "u", .client = true, .validity = std::chrono::hours(1)});
  ASSERT_TRUE(cert.ok());
  Status wrong = Verify(cert->cert_pem, other->cert_pem, Now());
  EXPECT_EQ(wrong.code(), StatusCode::kUnauthorized);
  EXPECT_EQ(wrong.message(), "unable to get local issuer certificate");
  Status expired = Verify(cert->cert_pem, ca->cert_pem, Now() + 2 * 3600);
  EXPECT_EQ(expired.code(), StatusCode::kUnauthorized);
  EXPECT_EQ(expired.message(), "certificate has expired");
  EXPECT_FALSE(MatchesKey(cert->cert_pem, ca->key_pem).ok());
}

TEST(Pki, BadInputIsABadRequest) {
  auto ca = NewCA("ca", kYear);
  ASSERT_TRUE(ca.ok());
  EXPECT_EQ(Inspect("not a certificate").status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(Inspect("").status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(Issue(*ca, {.common_name = ""}).status().message(),
            "a certificate needs a common name");
  EXPECT_EQ(Issue(*ca, {.common_name = "x", .ip_addresses = {"300.1.1.1"}}).status().message(),
            "invalid IP address \"300.1.1.1\"");
  EXPECT_EQ(Issue(*ca, {.common_name = "x", .dns_names = {"a,IP:1.2.3.4"}}).status().message(),
            "invalid DNS name \"a,IP:1.2.3.4\"");
  KeyPair mismatched{ca->cert_pem, NewCA("other", kYear)->key_pem};
  EXPECT_EQ(Issue(mismatched, {.common_name = "x"}).status().message(),
            "the CA's key does not match its certificate");
  auto leaf = Issue(*ca, {.common_name = "leaf"});
  ASSERT_TRUE(leaf.ok());
  EXPECT_EQ(Issue(*leaf, {.common_name = "x"}).status().message(),
            "the issuing certificate is not a CA");
  EXPECT_EQ(Verify("garbage", ca->cert_pem, Now()).code(), StatusCode::kBadRequest);
}

}  // namespace
}  // namespace allot::pki

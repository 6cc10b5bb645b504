#include "apiserver/authn/authenticator.h"

#include <gtest/gtest.h>

namespace allot::apiserver::authn {
namespace {

TEST(TokenFile, ParsesKubeApiserversFormat) {
  std::vector<std::string> warnings;
  auto tokens = ParseTokenFile(
      "t1,alice,uid-1\n"
      "\n"
      "t2,bob,uid-2,\"dev,ops\"\r\n"
      "t3,\"carol \"\"the admin\"\"\",uid-3,system:masters\n"
      ",nobody,uid-4\n"
      "t1,alice-again,uid-5\n",
      "tokens.csv", &warnings);
  ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
  EXPECT_EQ(tokens->size(), 3u);
  EXPECT_EQ(tokens->at("t1"), (UserInfo{"alice-again", "uid-5", {}}));  // the later one wins
  EXPECT_EQ(tokens->at("t2"), (UserInfo{"bob", "uid-2", {"dev", "ops"}}));
  EXPECT_EQ(tokens->at("t3"), (UserInfo{"carol \"the admin\"", "uid-3", {"system:masters"}}));
  EXPECT_EQ(warnings,
            (std::vector<std::string>{
                "empty token has been found in token file \"tokens.csv\", record number 4",
                "duplicate token has been found in token file \"tokens.csv\", record "
                "number 5"}));
}

TEST(TokenFile, BadFilesAreRefusedWithWhereAndWhy) {
  EXPECT_EQ(ParseTokenFile("t1,alice\n", "f", nullptr).status().message(),
            "token file \"f\" must have at least 3 columns (token, user name, user uid), found 2");
  EXPECT_EQ(ParseTokenFile("t1,al\"ice,u\n", "f", nullptr).status().message(),
            "token file \"f\": line 1: bare \" in non-quoted-field");
  EXPECT_EQ(ParseTokenFile("ok,a,b\nt1,\"alice,u\n", "f", nullptr).status().message(),
            "token file \"f\": line 3: extraneous or missing \" in quoted-field");
  EXPECT_EQ(ParseTokenFile("t1,\"a\"x,u\n", "f", nullptr).status().code(), StatusCode::kBadRequest);
}

Request WithHeader(std::string name, std::string value) {
  Request r;
  r.path = "/api/v1/pods";
  r.headers.emplace_back(std::move(name), std::move(value));
  return r;
}

TEST(Authenticator, DecidesAsKubeApiserver) {
  auto a = Authenticator::Create(
      {.token_file_csv = "secret,bob,uid-2,dev\n", .token_file_name = "t", .anonymous = false});
  ASSERT_TRUE(a.ok());
  Request cert;
  cert.client_certificate = Request::Certificate{"jane", {"system:masters"}};
  EXPECT_EQ((*a)->Authenticate(cert).value(),
            (UserInfo{"jane", "", {"system:masters", "system:authenticated"}}));
  EXPECT_EQ((*a)->Authenticate(WithHeader("Authorization", "Bearer secret")).value(),
            (UserInfo{"bob", "uid-2", {"dev", "system:authenticated"}}));
  EXPECT_EQ((*a)->Authenticate(WithHeader("authorization", "bearer secret")).value().name, "bob");
  // Nothing presented, a wrong token, an empty token: 401.
  for (const Request& r :
       {Request{}, WithHeader("Authorization", "Bearer nope"),
        WithHeader("Authorization", "Bearer "), WithHeader("Authorization", "Basic Ym9iOnB3")}) {
    Status st = (*a)->Authenticate(r).status();
    EXPECT_EQ(st.code(), StatusCode::kUnauthorized);
    EXPECT_EQ(st.message(), "Unauthorized");
  }
  // A certificate without a common name identifies nobody.
  Request nameless;
  nameless.client_certificate = Request::Certificate{"", {"g"}};
  EXPECT_FALSE((*a)->Authenticate(nameless).ok());
}

TEST(Authenticator, AnonymousOnlyWhenNothingIsPresented) {
  auto a = Authenticator::Create({.token_file_csv = "secret,bob,uid\n", .anonymous = true});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ((*a)->Authenticate(Request{}).value(),
            (UserInfo{"system:anonymous", "", {"system:unauthenticated"}}));
  EXPECT_EQ((*a)->Authenticate(WithHeader("Authorization", "Bearer wrong")).status().code(),
            StatusCode::kUnauthorized);
  // Client certificates can be switched off: then they identify nobody.
  auto no_certs = Authenticator::Create({.client_certificates = false, .anonymous = true});
  Request cert;
  cert.client_certificate = Request::Certificate{"jane", {}};
  EXPECT_EQ((*no_certs)->Authenticate(cert).value().name, "system:anonymous");
}

TEST(Authenticator, HealthProbes) {
  EXPECT_TRUE(Authenticator::IsHealthProbe("/healthz"));
  EXPECT_TRUE(Authenticator::IsHealthProbe("/readyz/ping"));
  EXPECT_TRUE(Authenticator::IsHealthProbe("/livez"));
  EXPECT_FALSE(Authenticator::IsHealthProbe("/healthzz"));
  EXPECT_FALSE(Authenticator::IsHealthProbe("/api/v1/healthz"));
  EXPECT_FALSE(Authenticator::IsHealthProbe("/metrics"));
}

}  // namespace
}  // namespace allot::apiserver::authn

// Test fixture: the request handler with bearer-token authentication and the authorization
// `allot serve` uses (system:masters, then RBAC with the bootstrap policy), over a memory
// store. Tokens: "admin-token" (group system:masters), "n1-token" (system:node:n1),
// "driver-token" (system:dra-driver:gpu.example.com), "alice-token" (alice, no roles),
// "bob-token" (bob in group dev, no roles), "n3-token" (system:node:n3, whose Node does not
// exist), "nameless-node-token" (system:node: in system:nodes, naming no node).
#pragma once

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>

#include "apiserver/handler.h"
#include "store/backend.h"
#include "store/store.h"

namespace allot::apiserver::testing {

inline constexpr char kTestTokens[] =
    "admin-token,admin,1,system:masters\n"
    "n1-token,system:node:n1,2,system:nodes\n"
    "driver-token,system:dra-driver:gpu.example.com,3,system:dra-drivers\n"
    "alice-token,alice,4\n"
    "bob-token,bob,5,dev\n"
    "n3-token,system:node:n3,6,system:nodes\n"
    "nameless-node-token,system:node:,7,system:nodes\n";

class AuthorizedHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    ServerConfig cfg;
    authn::AuthenticatorOptions authn;
    authn.token_file_csv = kTestTokens;
    auto authenticator = authn::Authenticator::Create(authn);
    ASSERT_TRUE(authenticator.ok());
    cfg.authenticator = *authenticator;
    auto rbac = authz::RbacAuthorizer::Create(store_, api::ResourceRegistry::Default());
    ASSERT_TRUE(rbac.ok());
    cfg.rbac = *rbac;
    cfg.authorizer = std::make_shared<authz::AuthorizerChain>(
        std::vector<std::shared_ptr<const authz::Authorizer>>{
            std::make_shared<authz::PrivilegedGroupAuthorizer>(), *rbac});
    cfg.audit = audit_;
    handler_ = std::make_unique<Handler>(store_, clock_, registry_, std::move(cfg));
  }
  void TearDown() override { handler_->Shutdown(); }

  // The answer to one request with `token` as its bearer token ("" : none) and `headers`.
  Response Send(const std::string& token, std::string method, std::string target,
                std::string body = "", std::string content_type = "application/json",
                const Pairs& headers = {}) {
    Request r;
    r.method = std::move(method);
    r.target = std::move(target);
    SplitTarget(r.target, r.path, r.query);
    r.body = std::move(body);
    r.remote = "127.0.0.1:4242";
    if (!token.empty()) r.headers.emplace_back("Authorization", "Bearer " + token);
    r.headers.emplace_back("Content-Type", std::move(content_type));
    r.headers.insert(r.headers.end(), headers.begin(), headers.end());
    auto promise = std::make_shared<std::promise<Response>>();
    auto future = promise->get_future();
    handler_->Handle(std::move(r), "127.0.0.1:4242",
                     [promise](Response res) { promise->set_value(std::move(res)); });
    return future.get();
  }
  // A write as the cluster admin that must succeed.
  void Admin(std::string method, std::string target, std::string body) {
    Response r = Send("admin-token", method, target, std::move(body));
    ASSERT_LT(r.status, 300) << method << " " << target << ": " << r.body;
  }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  metrics::Registry registry_;
  std::shared_ptr<audit::AuditLog> audit_;  // set before SetUp to audit
  std::unique_ptr<Handler> handler_;
};

}  // namespace allot::apiserver::testing

// libFuzzer target for request bodies the API server decodes beyond the object codec
// (decode_fuzz.cc): kubectl's protobuf bodies (apiserver/protobuf.h), and the review requests
// (SelfSubjectAccessReview, SubjectAccessReview, SelfSubjectRulesReview) through the request
// handler with RBAC on, as JSON and as protobuf.
//
// Built and run by scripts/test.sh with the other fuzzers (see decode_fuzz.cc for the flags):
//   build-fuzz/src/request_body_fuzz -max_total_time=60 /tmp/corpus tests/fuzz/corpus/request_body
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "apiserver/handler.h"
#include "apiserver/protobuf.h"
#include "store/backend.h"
#include "store/store.h"

namespace {

using namespace allot;

constexpr char kTokens[] = "t,alice,1,devs\n";

struct Server {
  FakeClock clock;
  store::Store store{store::NewMemoryBackend(), clock};
  metrics::Registry registry;
  std::unique_ptr<apiserver::Handler> handler;

  Server() {
    if (!store.Open().ok()) std::abort();
    apiserver::ServerConfig cfg;
    apiserver::authn::AuthenticatorOptions authn;
    authn.token_file_csv = kTokens;
    cfg.authenticator = apiserver::authn::Authenticator::Create(authn).value();
    auto rbac =
        apiserver::authz::RbacAuthorizer::Create(store, api::ResourceRegistry::Default()).value();
    cfg.rbac = rbac;
    cfg.authorizer = rbac;
    handler = std::make_unique<apiserver::Handler>(store, clock, registry, std::move(cfg));
  }

  void Post(std::string_view path, std::string_view body, std::string_view content_type) {
    apiserver::Request r;
    r.method = "POST";
    r.target = std::string(path);
    apiserver::SplitTarget(r.target, r.path, r.query);
    r.body = std::string(body);
    r.headers.emplace_back("Authorization", "Bearer t");
    r.headers.emplace_back("Content-Type", std::string(content_type));
    bool answered = false;
    handler->Handle(std::move(r), "127.0.0.1:1", [&](apiserver::Response) { answered = true; });
    if (!answered) std::abort();  // reviews are answered at once
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = new Server();
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string protobuf = std::string("k8s\0", 4) + std::string(in);
  (void)apiserver::ProtobufToJson(protobuf);
  for (const char* path : {"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                           "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                           "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"}) {
    server->Post(path, in, "application/json");
    server->Post(path, protobuf, api::kProtobufContentType);
  }
  return 0;
}

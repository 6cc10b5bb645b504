// libFuzzer target for request bodies the API server decodes beyond the object codec
// (decode_fuzz.cc): kubectl's protobuf bodies (apiserver/encoding/protobuf.h), the review requests
// (SelfSubjectAccessReview, SubjectAccessReview, SelfSubjectRulesReview) through the request
// handler with RBAC on, as JSON and as protobuf; the input's lines as Impersonate-* headers
// (authz/impersonation.h); and the input as a dry-run Role, ClusterRole or binding by a user who
// may create them, judged by the escalation guard (admission/rbac_escalation.h).
//
// Built and run by scripts/test.sh with the other fuzzers (see decode_fuzz.cc for the flags):
//   build-fuzz/src/request_body_fuzz -max_total_time=60 /tmp/corpus tests/fuzz/corpus/request_body
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <string_view>

#include "api/rbac/rbac.h"
#include "apiserver/encoding/protobuf.h"
#include "apiserver/handler.h"
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
    // alice may create every RBAC kind (so that the escalation guard judges what she writes).
    const auto& kinds = api::ResourceRegistry::Default();
    auto role = std::make_unique<api::ClusterRole>();
    role->metadata.name = "rbac-writer";
    role->rules = {api::PolicyRule{{"create"},
                                   {std::string(api::kRbacGroup)},
                                   {"roles", "clusterroles", "rolebindings", "clusterrolebindings"},
                                   {},
                                   {}}};
    auto binding = std::make_unique<api::ClusterRoleBinding>();
    binding->metadata.name = "rbac-writer";
    binding->roleRef = {std::string(api::kRbacGroup), "ClusterRole", "rbac-writer"};
    binding->subjects = {{"User", std::string(api::kRbacGroup), "alice", ""}};
    if (!store.Create(*kinds.Find(api::kRbacGroup, "v1", "clusterroles"), std::move(role)).ok() ||
        !store.Create(*kinds.Find(api::kRbacGroup, "v1", "clusterrolebindings"), std::move(binding))
             .ok()) {
      std::abort();
    }
  }

  // Answered at once (reviews), or within seconds (dry-run writes go through the store).
  void Post(std::string_view path, std::string_view body, std::string_view content_type,
            const apiserver::Pairs& headers = {}) {
    apiserver::Request r;
    r.method = "POST";
    r.target = std::string(path);
    apiserver::SplitTarget(r.target, r.path, r.query);
    r.body = std::string(body);
    r.headers.emplace_back("Authorization", "Bearer t");
    r.headers.emplace_back("Content-Type", std::string(content_type));
    r.headers.insert(r.headers.end(), headers.begin(), headers.end());
    auto answered = std::make_shared<std::promise<void>>();
    auto done = answered->get_future();
    handler->Handle(std::move(r), "127.0.0.1:1",
                    [answered](apiserver::Response) { answered->set_value(); });
    if (done.wait_for(std::chrono::seconds(10)) != std::future_status::ready) std::abort();
  }
};

// The input's lines "name: value" as Impersonate-<name> headers.
apiserver::Pairs ImpersonationHeaders(std::string_view in) {
  apiserver::Pairs headers;
  while (!in.empty() && headers.size() < 16) {
    size_t end = in.find('\n');
    std::string_view line = in.substr(0, end);
    size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
      headers.emplace_back("Impersonate-" + std::string(line.substr(0, colon)),
                           std::string(line.substr(colon + 1)));
    }
    if (end == std::string_view::npos) break;
    in.remove_prefix(end + 1);
  }
  return headers;
}

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
  server->Post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
               R"({"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}})",
               "application/json", ImpersonationHeaders(in));
  for (const char* path :
       {"/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles?dryRun=All",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles?dryRun=All",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings?dryRun=All",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings?dryRun=All"}) {
    server->Post(path, in, "application/json");
    server->Post(path, protobuf, api::kProtobufContentType);
  }
  return 0;
}

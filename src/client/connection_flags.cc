#include "client/connection_flags.h"

#include "api/protobuf.h"

namespace allot::client {

void ConnectionFlags::Register(Flags& flags) {
  flags.String("kubeconfig", &kubeconfig,
               "kubeconfig file with the server and credentials (default: $KUBECONFIG, then "
               "the in-cluster service account)");
  flags.String("context", &context, "the kubeconfig context to use (default: current-context)");
  flags.String("server", &server,
               "API server URL, e.g. https://127.0.0.1:6443 (overrides the kubeconfig's)");
  flags.String("token", &token, "bearer token for the API server (overrides the kubeconfig's)");
  flags.String("kube-api-content-type", &content_type,
               "what requests to the API server are sent as and asked for: "
               "application/vnd.kubernetes.protobuf (JSON for what protobuf cannot carry) or "
               "application/json");
}

Result<RestConfig> ConnectionFlags::Resolve() const {
  ALLOT_ASSIGN_OR_RETURN(RestConfig cfg, ResolveRestConfig(kubeconfig, context, server));
  if (!token.empty()) cfg.token = token;
  return cfg;
}

Result<std::unique_ptr<HttpClient>> ConnectionFlags::Connect(HttpClientOptions options,
                                                             RestConfig* out) const {
  if (content_type != api::kProtobufContentType && content_type != "application/json") {
    return BadRequestError("--kube-api-content-type: \"" + content_type + "\" is neither " +
                           std::string(api::kProtobufContentType) + " nor application/json");
  }
  options.protobuf = content_type == api::kProtobufContentType;
  ALLOT_ASSIGN_OR_RETURN(RestConfig cfg, Resolve());
  auto client = NewHttpClient(cfg, std::move(options));
  if (client.ok() && out) *out = std::move(cfg);
  return client;
}

}  // namespace allot::client

#include "client/connection_flags.h"

namespace allot::client {

void ConnectionFlags::Register(Flags& flags) {
  flags.String("kubeconfig", &kubeconfig,
               "kubeconfig file with the server and credentials (default: $KUBECONFIG, then "
               "the in-cluster service account)");
  flags.String("context", &context, "the kubeconfig context to use (default: current-context)");
  flags.String("server", &server,
               "API server URL, e.g. https://127.0.0.1:6443 (overrides the kubeconfig's)");
  flags.String("token", &token, "bearer token for the API server (overrides the kubeconfig's)");
}

Result<RestConfig> ConnectionFlags::Resolve() const {
  ALLOT_ASSIGN_OR_RETURN(RestConfig cfg, ResolveRestConfig(kubeconfig, context, server));
  if (!token.empty()) cfg.token = token;
  return cfg;
}

Result<std::unique_ptr<HttpClient>> ConnectionFlags::Connect(HttpClientOptions options,
                                                             RestConfig* out) const {
  ALLOT_ASSIGN_OR_RETURN(RestConfig cfg, Resolve());
  auto client = NewHttpClient(cfg, std::move(options));
  if (client.ok() && out) *out = std::move(cfg);
  return client;
}

}  // namespace allot::client

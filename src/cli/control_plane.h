// The control-plane components besides the API server and the scheduler: the controllers, with
// the informers they share. Used by `allot serve`, `allot controllers` and `allot bench`.
#pragma once

#include <memory>

#include "client/client.h"
#include "client/informer_factory.h"
#include "common/metrics.h"
#include "common/status.h"
#include "controllers/resourceclaim_controller.h"
#include "dra/features.h"

namespace allot::cli {

class Controllers {
 public:
  ~Controllers();  // Stop()s
  void Stop();
  client::InformerFactory& informers() { return *informers_; }

 private:
  friend Result<std::unique_ptr<Controllers>> StartControllers(client::Client&, metrics::Registry*,
                                                               const dra::Features&);
  std::unique_ptr<client::InformerFactory> informers_;
  std::unique_ptr<controllers::ResourceClaimController> resource_claims_;
};

// Starts the resourceclaim controller over `client` with its own informers.
// `metrics` (optional) is shared with the API server so /metrics shows it.
Result<std::unique_ptr<Controllers>> StartControllers(client::Client& client,
                                                      metrics::Registry* metrics,
                                                      const dra::Features& features);

// `allot controllers --server URL [--feature-gates ...]`.
int RunControllers(int argc, char** argv);

}  // namespace allot::cli

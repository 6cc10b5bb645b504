// What a standalone component can use of the server it was pointed at (cluster/server_features.h):
// Allot's own serves PodSchedulingContexts; Kubernetes since 1.32 does not (404), and its
// system:kube-scheduler may not list them (403).
#include "cluster/server_features.h"

#include <gtest/gtest.h>

#include "client/inprocess/inprocess_client.h"
#include "client/testing/forwarding_client.h"
#include "cluster/components.h"
#include "store/store.h"

namespace allot::integration {
namespace {

// Answers lists of PodSchedulingContexts with `answer`; everything else as the store does.
class WithoutContexts final : public client::ForwardingClient {
 public:
  WithoutContexts(client::Client& inner, Status answer)
      : ForwardingClient(inner), answer_(std::move(answer)) {}
  Result<api::ListResult> List(const api::ResourceInfo& r, const api::ListOptions& o) override {
    ++lists_;
    if (r.resource == "podschedulingcontexts") return answer_;
    return ForwardingClient::List(r, o);
  }
  int lists_ = 0;

 private:
  Status answer_;
};

class ServerFeaturesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), RealClock::Instance(),
                                            cluster::DefaultStoreOptions());
    ASSERT_TRUE(store_->Open().ok());
    client_ = std::make_unique<client::InProcessClient>(*store_, RealClock::Instance());
  }
  void TearDown() override {
    client_.reset();
    store_->Close();
  }
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<client::InProcessClient> client_;
};

TEST_F(ServerFeaturesTest, AllotsOwnServerOffersEverything) {
  EXPECT_TRUE(cluster::FeaturesTheServerOffers(*client_, {}, "test").control_plane_controller);
}

TEST_F(ServerFeaturesTest, NotServedOrForbiddenTurnsKep3063Off) {
  WithoutContexts gone(*client_, Status(StatusCode::kNotFound, "the server could not find the "
                                                               "requested resource"));
  EXPECT_FALSE(cluster::FeaturesTheServerOffers(gone, {}, "test").control_plane_controller);
  WithoutContexts forbidden(*client_, Status(StatusCode::kForbidden, "podschedulingcontexts is "
                                                                     "forbidden"));
  dra::Features wanted;
  wanted.device_taints = false;  // what else was asked for stays as asked
  dra::Features got = cluster::FeaturesTheServerOffers(forbidden, wanted, "test");
  EXPECT_FALSE(got.control_plane_controller);
  EXPECT_FALSE(got.device_taints);
  // Unreachable is not an answer: the informers will retry.
  WithoutContexts down(*client_, Status(StatusCode::kServiceUnavailable, "connection refused"));
  EXPECT_TRUE(cluster::FeaturesTheServerOffers(down, {}, "test").control_plane_controller);
  // Turned off already: not asked.
  dra::Features off;
  off.control_plane_controller = false;
  WithoutContexts counted(*client_, Status(StatusCode::kNotFound, "x"));
  cluster::FeaturesTheServerOffers(counted, off, "test");
  EXPECT_EQ(counted.lists_, 0);
}

}  // namespace
}  // namespace allot::integration

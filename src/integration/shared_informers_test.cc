// The scheduler and the controllers given one InformerFactory share one informer per resource
// (cluster/components.h), as `allot serve` and `allot bench` run them: counted by the watches
// they open on the store.
#include <gtest/gtest.h>

#include "client/inprocess/inprocess_client.h"
#include "cluster/components.h"
#include "store/store.h"

namespace allot::integration {
namespace {

class SharedInformersTest : public ::testing::Test {
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

  // The watches the scheduler and/or the controllers open, each with its own informers or
  // both with one factory.
  uint64_t Watches(bool scheduler, bool controllers, bool shared) {
    const uint64_t before = store_->GetStats().watchers;
    std::unique_ptr<scheduler::Scheduler> sched;
    std::unique_ptr<cluster::Controllers> ctl;
    client::InformerFactory informers(*client_);  // destroyed (stopped) before the components
    client::InformerFactory* shared_informers = shared ? &informers : nullptr;
    if (scheduler) {
      auto s = cluster::StartScheduler(*client_, "", nullptr, {}, shared_informers);
      EXPECT_TRUE(s.ok()) << s.status().ToString();
      if (s.ok()) sched = std::move(s).value();
    }
    if (controllers) {
      auto c = cluster::StartControllers(*client_, nullptr, {}, nullptr, false, shared_informers);
      EXPECT_TRUE(c.ok()) << c.status().ToString();
      if (c.ok()) ctl = std::move(c).value();
    }
    // The scheduler's Start waits for its informers; the controllers' start theirs and go on.
    if (ctl) {
      EXPECT_TRUE(ctl->informers().WaitForCacheSync(std::chrono::seconds(30)));
    }
    const uint64_t watches = store_->GetStats().watchers - before;
    if (sched) sched->Stop();
    if (ctl) ctl->Stop();
    return watches;
  }

  std::unique_ptr<store::Store> store_;
  std::unique_ptr<client::InProcessClient> client_;
};

TEST_F(SharedInformersTest, OneFactoryWatchesEachResourceOnce) {
  const uint64_t scheduler = Watches(true, false, false);
  const uint64_t controllers = Watches(false, true, false);
  ASSERT_GT(scheduler, 0u);
  ASSERT_GT(controllers, 0u);
  EXPECT_EQ(Watches(true, true, false), scheduler + controllers);
  // Pods, nodes, resourceclaims, reservations and poddisruptionbudgets are watched by both.
  EXPECT_EQ(Watches(true, true, true), scheduler + controllers - 5);
}

}  // namespace
}  // namespace allot::integration

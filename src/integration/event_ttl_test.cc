// A Cluster expires Events after ClusterOptions::event_ttl (`allot serve --event-ttl`), on a
// fake clock; registry/event_expiry_test.cc covers the expiry itself on every backend.
#include <gtest/gtest.h>

#include <thread>

#include "cluster/cluster.h"
#include "testing/objects.h"

namespace allot::integration {
namespace {

using std::chrono::minutes;

class EventTtlTest : public ::testing::Test {
 protected:
  std::unique_ptr<cluster::Cluster> Start(std::chrono::microseconds ttl) {
    cluster::ClusterOptions o;
    o.store = "memory";
    o.clock = &clock_;
    o.scheduler = false;
    o.controllers = false;
    o.event_ttl = ttl;
    auto c = cluster::Cluster::Start(std::move(o));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  const api::ResourceInfo& events() { return testing::Resource("", "events"); }

  // Whether the Event is gone within a bounded real time (the expiry works on its own thread).
  bool GoneSoon(cluster::Cluster& c, const std::string& name) {
    for (int i = 0; i < 500; ++i) {
      if (!c.client().Get(events(), "default", name).ok()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  FakeClock clock_;
};

TEST_F(EventTtlTest, EventsLeaveTheClusterAfterTheTtl) {
  auto c = Start(minutes(30));
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->client().Create(events(), testing::MakeEvent("default", "p.1")).ok());
  clock_.Advance(minutes(31));
  EXPECT_TRUE(GoneSoon(*c, "p.1"));
}

TEST_F(EventTtlTest, AZeroTtlKeepsEvents) {
  auto c = Start(std::chrono::microseconds(0));
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->client().Create(events(), testing::MakeEvent("default", "p.1")).ok());
  clock_.Advance(std::chrono::hours(24 * 365));
  // Nothing runs that could delete it; the read is immediate.
  EXPECT_TRUE(c->client().Get(events(), "default", "p.1").ok());
}

}  // namespace
}  // namespace allot::integration

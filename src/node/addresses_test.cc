#include "node/addresses.h"

#include <gtest/gtest.h>

#include <set>

namespace allot::node {
namespace {

TEST(AddressesTest, NodeAddressesAreDistinctPerIndex) {
  EXPECT_EQ(NodeInternalIp(0), "172.16.0.1");
  EXPECT_EQ(NodeInternalIp(256), "172.16.1.1");
  EXPECT_EQ(NodePodCidr(0), "10.0.0.0/24");
  EXPECT_EQ(NodePodCidr(257), "10.1.1.0/24");
  EXPECT_EQ(NodePodCidr(kMaxNodes - 1), "10.255.255.0/24");
  EXPECT_EQ(ParseIpv4("10.1.2.3"), std::optional<uint32_t>(0x0A010203));
  EXPECT_EQ(ParseIpv4("nope"), std::nullopt);
}

TEST(PodIpPoolTest, HandsOutTheNodesSlash24AndReusesLate) {
  PodIpPool pool(3);
  std::set<std::string> seen;
  for (int i = 0; i < 254; ++i) {
    std::optional<std::string> ip = pool.Allocate();
    ASSERT_TRUE(ip);
    EXPECT_EQ(ip->rfind("10.0.3.", 0), 0u) << *ip;
    EXPECT_TRUE(seen.insert(*ip).second) << *ip;
  }
  EXPECT_FALSE(pool.Allocate());
  EXPECT_FALSE(seen.count("10.0.3.0"));
  EXPECT_FALSE(seen.count("10.0.3.255"));
  pool.Release("10.0.3.7");
  EXPECT_EQ(pool.Allocate(), "10.0.3.7");
  EXPECT_EQ(pool.used(), 254);
}

TEST(PodIpPoolTest, ReleasedAddressIsNotReusedAtOnce) {
  PodIpPool pool(0);
  EXPECT_EQ(pool.Allocate(), "10.0.0.1");
  pool.Release("10.0.0.1");
  EXPECT_EQ(pool.Allocate(), "10.0.0.2");
}

TEST(PodIpPoolTest, ClaimsAdoptedAddresses) {
  PodIpPool pool(1);
  EXPECT_TRUE(pool.Claim("10.0.1.1"));
  EXPECT_FALSE(pool.Claim("10.0.1.1"));    // already used
  EXPECT_FALSE(pool.Claim("10.0.2.5"));    // another node's range
  EXPECT_FALSE(pool.Claim("10.0.1.255"));  // broadcast
  EXPECT_EQ(pool.Allocate(), "10.0.1.2");
  pool.Release("192.168.0.1");  // ignored
  EXPECT_EQ(pool.used(), 2);
}

}  // namespace
}  // namespace allot::node

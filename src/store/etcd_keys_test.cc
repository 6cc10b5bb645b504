#include "store/etcd_keys.h"

#include <gtest/gtest.h>

namespace allot::store {
namespace {

TEST(EtcdKeyLayoutTest, KubernetesGroupsAreUnqualifiedOthersCarryTheirGroup) {
  EtcdKeyLayout layout(api::ResourceRegistry::Default());
  const std::pair<const char*, const char*> cases[] = {
      {"core/pods/default/p", "pods/default/p"},
      {"core/nodes/node-1", "nodes/node-1"},
      {"resource.k8s.io/resourceclaims/default/gpu", "resourceclaims/default/gpu"},
      {"coordination.k8s.io/leases/kube-system/allot-scheduler",
       "leases/kube-system/allot-scheduler"},
      {"policy/poddisruptionbudgets/default/pdb", "poddisruptionbudgets/default/pdb"},
      {"scheduling.koordinator.sh/reservations/r", "scheduling.koordinator.sh/reservations/r"},
  };
  for (const auto& [store_key, etcd_key] : cases) {
    EXPECT_EQ(layout.ToEtcd(store_key), etcd_key);
    EXPECT_EQ(layout.ToStore(etcd_key), store_key);
  }
}

TEST(EtcdKeyLayoutTest, KeysThatAreNoObjectsAreNotMapped) {
  EtcdKeyLayout layout(api::ResourceRegistry::Default());
  EXPECT_EQ(layout.ToStore("compact_rev_key"), std::nullopt);
  EXPECT_EQ(layout.ToStore("widgets/default/w"), std::nullopt);  // a resource not served
}

}  // namespace
}  // namespace allot::store

// The store conformance fixture: every test runs against each backend.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/time.h"
#include "etcd/local_cluster.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/builders.h"
#include "testing/objects.h"

namespace allot::store {

class StoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { Reopen(); }

  // (Re)opens the store on the same data directory (sqlite), the same etcd prefix (etcd), or a
  // fresh memory backend.
  void Reopen(StoreOptions opts = {}) {
    store_.reset();
    std::unique_ptr<Backend> backend;
    if (GetParam() == "sqlite") {
      auto b = NewSqliteBackend(dir_.path() + "/allot.db");
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      backend = std::move(b).value();
    } else if (GetParam() == "etcd") {
      // One etcd member per test process; a reopened store finds its objects there again.
      static std::unique_ptr<etcd::LocalCluster> cluster;
      if (!cluster) {
        auto c = etcd::LocalCluster::Start(1);
        ASSERT_TRUE(c.ok()) << c.status().ToString();
        cluster = std::move(c).value();
      }
      EtcdBackendOptions o;
      o.endpoints = cluster->endpoints();
      o.prefix = "/registry-" + dir_.path().substr(dir_.path().rfind('/') + 1) + "/";
      auto b = NewEtcdBackend(o);
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      backend = std::move(b).value();
    } else {
      backend = NewMemoryBackend();
    }
    store_ = std::make_unique<Store>(std::move(backend), clock_, opts);
    Status st = store_->Open();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  const api::ResourceInfo& pods() { return testing::Resource("", "pods"); }
  const api::ResourceInfo& namespaces() { return testing::Resource("", "namespaces"); }

  ObjectPtr CreatePod(const std::string& ns, const std::string& name,
                      const std::string& extra = {}) {
    auto r = store_->Create(pods(), testing::PodManifest(ns, name, extra));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }

  allot::testing::TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<Store> store_;
};

}  // namespace allot::store

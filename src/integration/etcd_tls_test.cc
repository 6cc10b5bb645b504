// `allot serve --store etcd` against etcd members that serve https and require client
// certificates (--etcd-cafile, --etcd-certfile, --etcd-keyfile): the cluster's store works over
// TLS, and a server without a client certificate the members trust is refused at startup.
#include <gtest/gtest.h>

#include <fstream>

#include "cluster/cluster.h"
#include "etcd/client.h"
#include "etcd/local_cluster.h"
#include "pki/pki.h"
#include "testing/builders.h"
#include "testing/objects.h"

namespace allot::integration {
namespace {

class EtcdTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ca = pki::NewCA("etcd-ca", std::chrono::hours(24));
    ASSERT_TRUE(ca.ok());
    ca_ = *ca;
    // The members' certificate, also what the cluster launcher presents as a client.
    auto member = pki::Issue(
        ca_,
        {.common_name = "etcd", .ip_addresses = {"127.0.0.1"}, .server = true, .client = true});
    ASSERT_TRUE(member.ok());
    auto apiserver = pki::Issue(ca_, {.common_name = "allot-apiserver", .client = true});
    ASSERT_TRUE(apiserver.ok());
    client_ = *apiserver;
    etcd::LocalClusterTls tls{Write("ca.crt", ca_.cert_pem), Write("etcd.crt", member->cert_pem),
                              Write("etcd.key", member->key_pem)};
    auto c = etcd::LocalCluster::Start(1, &tls);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    etcd_ = std::move(c).value();
  }

  std::string Write(const std::string& name, const std::string& pem) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << pem;
    return path;
  }

  cluster::ClusterOptions Options() {
    cluster::ClusterOptions o;
    o.store = "etcd";
    o.etcd_servers = etcd_->endpoints();
    o.etcd_ca_pem = ca_.cert_pem;
    o.scheduler = false;
    o.controllers = false;
    return o;
  }

  testing::TempDir dir_;
  pki::KeyPair ca_, client_;
  std::unique_ptr<etcd::LocalCluster> etcd_;
};

TEST_F(EtcdTlsTest, TheStoreWorksOverTlsWithAClientCertificate) {
  ASSERT_EQ(etcd_->endpoints()[0].rfind("https://", 0), 0u);
  cluster::ClusterOptions o = Options();
  o.etcd_cert_pem = client_.cert_pem;
  o.etcd_key_pem = client_.key_pem;
  auto c = cluster::Cluster::Start(std::move(o));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto created =
      (*c)->store().Create(testing::Resource("", "pods"), testing::PodManifest("default", "p"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE((*c)->store().Ready().ok());

  etcd::Options raw;
  raw.endpoints = etcd_->endpoints();
  raw.ca_pem = ca_.cert_pem;
  raw.cert_pem = client_.cert_pem;
  raw.key_pem = client_.key_pem;
  auto client = etcd::Client::Connect(raw);
  ASSERT_TRUE(client.ok());
  auto got = (*client)->Range("/registry/pods/default/p", "", 0, 0);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->kvs.size(), 1u);
}

TEST_F(EtcdTlsTest, WithoutAClientCertificateTheServerDoesNotStart) {
  cluster::ClusterOptions o = Options();
  auto c = cluster::Cluster::Start(std::move(o));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("opening the store"), std::string::npos)
      << c.status().ToString();
}

}  // namespace
}  // namespace allot::integration

// Shared fixture of the client tests: every test runs against both Client implementations,
// "inprocess" (InProcessClient over a memory Store) and "http" (HttpClient against an ApiServer
// on 127.0.0.1:0 over a memory Store), on a FakeClock.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/core/types.h"
#include "apiserver/server.h"
#include "client/client.h"
#include "client/http_client.h"
#include "client/inprocess/inprocess_client.h"
#include "common/time.h"
#include "pki/pki.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"

namespace allot::client {

#define ASSERT_OK(expr)                             \
  do {                                              \
    const auto& _r = (expr);                        \
    ASSERT_TRUE(_r.ok()) << _r.status().ToString(); \
  } while (0)

inline const ResourceInfo& Pods() { return testing::Resource("", "pods"); }
inline const ResourceInfo& Nodes() { return testing::Resource("", "nodes"); }

// Waits (on a condition variable, never a timer) until `pred` holds; false after `timeout`.
// Other threads change what `pred` reads inside Notify(change), under the waiter's lock: a
// waiter that saw the change can then destroy the Waiter safely, because the notifier released
// the lock last.
class Waiter {
 public:
  void Notify(const std::function<void()>& change = {}) {
    std::lock_guard<std::mutex> lock(mu_);
    if (change) change();
    cv_.notify_all();
  }
  bool WaitFor(const std::function<bool()>& pred,
               std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, pred);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
};

// A CA, a serving certificate for 127.0.0.1 and a client certificate, made once per process.
struct TestPki {
  pki::KeyPair ca, server, client;
};
inline const TestPki& SharedPki() {
  static const TestPki kPki = [] {
    TestPki p;
    p.ca = pki::NewCA("test-ca", std::chrono::hours(24)).value();
    p.server = pki::Issue(p.ca, {.common_name = "apiserver",
                                 .dns_names = {"localhost"},
                                 .ip_addresses = {"127.0.0.1"},
                                 .server = true})
                   .value();
    p.client =
        pki::Issue(p.ca, {.common_name = "tester", .organizations = {"testers"}, .client = true})
            .value();
    return p;
  }();
  return kPki;
}

class ClientTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { Open({}); }
  void TearDown() override { Close(); }

  void Open(store::StoreOptions store_options, HttpClientOptions http_options = {}) {
    Close();
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), clock_, store_options);
    ASSERT_TRUE(store_->Open().ok());
    if (GetParam() == "http" || GetParam() == "https") {
      const bool tls = GetParam() == "https";
      apiserver::ApiServerOptions options;
      options.bookmark_interval = std::chrono::seconds(1);
      if (tls) {
        const TestPki& pki = SharedPki();
        options.tls =
            apiserver::ApiServerTls{pki.server.cert_pem, pki.server.key_pem, pki.ca.cert_pem};
        http_options.tls.ca_pem = pki.ca.cert_pem;
        http_options.tls.cert_pem = pki.client.cert_pem;
        http_options.tls.key_pem = pki.client.key_pem;
      }
      server_ = std::make_unique<apiserver::ApiServer>(*store_, clock_, options);
      Status st = server_->Start();
      ASSERT_TRUE(st.ok()) << st.ToString();
      if (tls) {
        auto c = HttpClient::FromUrl("https://127.0.0.1:" + std::to_string(server_->port()),
                                     http_options);
        ASSERT_TRUE(c.ok()) << c.status().ToString();
        client_ = std::move(c).value();
      } else {
        client_ = std::make_unique<HttpClient>("127.0.0.1", server_->port(), http_options);
      }
    } else {
      client_ = std::make_unique<InProcessClient>(*store_, clock_);
    }
  }

  void Close() {
    client_.reset();
    if (server_) server_->Stop();
    server_.reset();
    if (store_) store_->Close();
    store_.reset();
  }

  ObjectPtr CreatePod(const std::string& name, std::string_view extra_spec = {},
                      const std::string& ns = "default") {
    auto r = client_->Create(Pods(), testing::PodManifest(ns, name, extra_spec));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }

  ObjectPtr CreateNode(const std::string& name) {
    auto r = client_->Create(
        Nodes(), testing::ObjectFromJson(
                     R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name + R"("}})"));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }

  static std::unique_ptr<api::Pod> Mutable(const ObjectPtr& obj) {
    return std::make_unique<api::Pod>(*api::As<api::Pod>(*obj));
  }

  FakeClock clock_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<apiserver::ApiServer> server_;
  std::unique_ptr<Client> client_;
};

#define ALLOT_CLIENT_TEST_SUITE(suite)                                 \
  INSTANTIATE_TEST_SUITE_P(                                            \
      Clients, suite, ::testing::Values("inprocess", "http", "https"), \
      [](const ::testing::TestParamInfo<std::string>& info) { return info.param; })

}  // namespace allot::client

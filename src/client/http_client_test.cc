// HttpClient specifics: URLs, Status decoding, keep-alive reconnects, calls from callbacks.
#include "client/http_client.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <boost/asio.hpp>
#include <thread>

#include "api/codec/codec.h"
#include "api/protobuf.h"
#include "client/testing/fixture.h"

namespace allot::client {
namespace {

TEST(HttpClientUrl, FromUrl) {
  EXPECT_TRUE(HttpClient::FromUrl("http://127.0.0.1:6443").ok());
  EXPECT_TRUE(HttpClient::FromUrl("http://localhost:6443/").ok());
  EXPECT_TRUE(HttpClient::FromUrl("http://example").ok());
  EXPECT_TRUE(HttpClient::FromUrl("https://127.0.0.1:6443").ok());  // the system's CAs
  EXPECT_TRUE(HttpClient::FromUrl("https://[::1]:6443").ok());
  EXPECT_EQ(HttpClient::FromUrl("ftp://127.0.0.1:6443").status().code(), StatusCode::kBadRequest);
  HttpClientOptions bad_ca;
  bad_ca.tls.ca_pem = "not PEM";
  EXPECT_EQ(HttpClient::FromUrl("https://h:1", bad_ca).status().code(), StatusCode::kBadRequest);
  HttpClientOptions half;
  half.tls.cert_pem = SharedPki().client.cert_pem;
  EXPECT_EQ(HttpClient::FromUrl("https://h:1", half).status().message(),
            "a client certificate needs its key, and a key its certificate");
  EXPECT_EQ(HttpClient::FromUrl("http://h:port").status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(HttpClient::FromUrl("http://h:1/api").status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(HttpClient::FromUrl("http://").status().code(), StatusCode::kBadRequest);
}

TEST(HttpClientUrl, Paths) {
  const auto& claims = testing::Resource("resource.k8s.io", "resourceclaims");
  EXPECT_EQ(HttpClient::CollectionPath(Pods(), "default"), "/api/v1/namespaces/default/pods");
  EXPECT_EQ(HttpClient::CollectionPath(Pods(), ""), "/api/v1/pods");
  EXPECT_EQ(HttpClient::ItemPath(Nodes(), "ignored", "n1"), "/api/v1/nodes/n1");
  EXPECT_EQ(HttpClient::ItemPath(claims, "ns", "c"),
            "/apis/resource.k8s.io/" + claims.version + "/namespaces/ns/resourceclaims/c");
}

TEST(HttpClientStatus, DecodesKubernetesStatus) {
  std::string body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"Pod \"x\" is invalid: spec.containers: Required value","reason":"Invalid",
      "details":{"name":"x","kind":"Pod","causes":[{"reason":"FieldValueRequired",
      "message":"Required value","field":"spec.containers"}]},"code":422})";
  Status st = ErrorFromResponse(422, body);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(), "Pod \"x\" is invalid: spec.containers: Required value");
  EXPECT_EQ(st.details().name, "x");
  EXPECT_EQ(st.details().kind, "Pod");
  ASSERT_EQ(st.details().causes.size(), 1u);
  EXPECT_EQ(st.details().causes[0],
            (StatusCause{"FieldValueRequired", "Required value", "spec.containers"}));

  // Reasons pick between codes that share an HTTP status.
  EXPECT_EQ(
      ErrorFromResponse(409, R"({"kind":"Status","reason":"AlreadyExists","code":409})").code(),
      StatusCode::kAlreadyExists);
  EXPECT_EQ(ErrorFromResponse(410, R"({"kind":"Status","reason":"Expired","code":410})").code(),
            StatusCode::kExpired);
  // Unknown reason: the code decides; retryAfterSeconds is kept.
  // kube-apiserver answers a client that asks for protobuf with a protobuf Status.
  std::string proto;
  api::AppendProtobufStatus(Status(StatusCode::kForbidden, "podschedulingcontexts is forbidden"),
                            proto);
  Status forbidden = ErrorFromResponse(403, proto);
  EXPECT_EQ(forbidden.code(), StatusCode::kForbidden);
  EXPECT_EQ(forbidden.message(), "podschedulingcontexts is forbidden");
  Status throttled = ErrorFromResponse(
      429, R"({"kind":"Status","reason":"Whatever","details":{"retryAfterSeconds":3}})");
  EXPECT_EQ(throttled.code(), StatusCode::kTooManyRequests);
  EXPECT_EQ(throttled.details().retry_after_seconds, 3);
  // Not a Status at all.
  Status plain = ErrorFromResponse(502, "Bad Gateway");
  EXPECT_EQ(plain.code(), StatusCode::kInternalError);
  EXPECT_EQ(plain.message(), "the server answered 502: Bad Gateway");
  EXPECT_EQ(ErrorFromResponse(404, "").code(), StatusCode::kNotFound);
}

TEST(HttpClientStatus, QueryEscape) {
  EXPECT_EQ(QueryEscape("tier in (a,b),!canary"), "tier%20in%20%28a%2Cb%29%2C%21canary");
  EXPECT_EQ(QueryEscape("a=b"), "a%3Db");
  EXPECT_EQ(QueryEscape("Az09-_.~"), "Az09-_.~");
}

class HttpOnlyTest : public ClientTest {};
INSTANTIATE_TEST_SUITE_P(Http, HttpOnlyTest, ::testing::Values("http", "https"));

TEST_P(HttpOnlyTest, SynchronousCallInsideACallbackUsesTheWorkersConnection) {
  HttpClientOptions one_worker;
  one_worker.workers = 1;
  Open({}, one_worker);
  Waiter waiter;
  std::atomic<bool> done{false};
  Result<ObjectPtr> inner = Status(StatusCode::kInternalError, "not run");
  client_->CreateAsync(Pods(), testing::PodManifest("default", "p1"), [&](Result<ObjectPtr> r) {
    EXPECT_TRUE(r.ok());
    // With one worker, queueing this Get behind ourselves would never finish.
    auto got = client_->Get(Pods(), "default", "p1");
    waiter.Notify([&] {
      inner = std::move(got);
      done = true;
    });
  });
  ASSERT_TRUE(waiter.WaitFor([&] { return done.load(); }));
  ASSERT_OK(inner);
  EXPECT_EQ((*inner)->metadata.name, "p1");
}

TEST_P(HttpOnlyTest, ReconnectsAfterTheServerClosedTheConnection) {
  CreatePod("p1");
  ASSERT_OK(client_->Get(Pods(), "default", "p1"));  // a kept-alive connection exists now
  const uint16_t port = server_->port();
  // (Destroyed, not just stopped: ApiServer::Stop leaves idle connections open until then.)
  server_.reset();
  auto down = client_->Get(Pods(), "default", "p1");
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().code(), StatusCode::kServiceUnavailable);
  auto watch = client_->Watch(Pods(), {});
  EXPECT_EQ(watch.status().code(), StatusCode::kServiceUnavailable);

  apiserver::ApiServerOptions options;
  options.listen_address = "127.0.0.1:" + std::to_string(port);
  if (GetParam() == "https") {
    options.tls = apiserver::ApiServerTls{SharedPki().server.cert_pem, SharedPki().server.key_pem,
                                          SharedPki().ca.cert_pem};
  }
  server_ = std::make_unique<apiserver::ApiServer>(*store_, clock_, options);
  Status st = server_->Start();
  if (!st.ok()) GTEST_SKIP() << "port " << port << " not reusable: " << st.ToString();
  ASSERT_OK(client_->Get(Pods(), "default", "p1"));
}

TEST_P(HttpOnlyTest, WatchEndsWhenTheServerStops) {
  Waiter waiter;  // outlives the watch, whose reader thread calls into it
  std::atomic<bool> notified{false};
  auto watch = client_->Watch(Pods(), {});
  ASSERT_OK(watch);
  (*watch)->SetNotify([&] { waiter.Notify([&] { notified = true; }); });
  server_.reset();
  std::vector<api::WatchEvent> events;
  ASSERT_TRUE(waiter.WaitFor([&] { return !(*watch)->Drain(events); }));
  EXPECT_TRUE(notified.load());
}

TEST_P(HttpOnlyTest, WatchRequestErrorsAreStatuses) {
  api::WatchOptions opts;
  auto sel = api::FieldSelectorExpr::Parse("spec.nosuchfield=x");
  ASSERT_OK(sel);
  opts.field_selector = *sel;
  auto watch = client_->Watch(Pods(), opts);
  ASSERT_FALSE(watch.ok());
  EXPECT_EQ(watch.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(watch.status().message().find("field label not supported"), std::string::npos)
      << watch.status().message();
}

// The client speaks protobuf by default; a pod with a probe (kept as JSON text) travels in it as
// its message, through a create and a watch.
TEST_P(HttpOnlyTest, AProtobufWatchCarriesAPodWithAProbe) {
  CreatePod("plain");
  auto list = client_->List(Pods(), {});
  ASSERT_OK(list);
  api::WatchOptions from;
  from.resource_version = list->resource_version;
  auto watch = client_->Watch(Pods(), from);
  ASSERT_OK(watch);
  auto probed = testing::PodManifest("default", "probed");
  static_cast<api::Pod&>(*probed).spec.containers.at(0).rare.edit().livenessProbe.json =
      R"({"exec":{"command":["true"]}})";
  auto created = client_->Create(Pods(), std::move(probed));
  ASSERT_OK(created);
  // Stored with the defaults kube-apiserver gives a probe.
  constexpr const char* kDefaulted =
      R"({"exec":{"command":["true"]},"timeoutSeconds":1,"periodSeconds":10,)"
      R"("successThreshold":1,"failureThreshold":3})";
  EXPECT_EQ(static_cast<const api::Pod&>(**created).spec.containers.at(0).rare->livenessProbe.json,
            kDefaulted);
  api::WatchEvent ev;
  ASSERT_TRUE((*watch)->WaitNext(ev, std::chrono::seconds(10)));
  ASSERT_EQ(ev.type, api::EventType::kAdded) << ev.error.ToString();
  EXPECT_EQ(ev.object->metadata.name, "probed");
  EXPECT_EQ(
      static_cast<const api::Pod&>(*ev.object).spec.containers.at(0).rare->livenessProbe.json,
      kDefaulted);
}

// The same conversation with protobuf turned off, and with it on for a list of many pods.
TEST_P(HttpOnlyTest, ProtobufAndJsonClientsSeeTheSameObjects) {
  if (GetParam() != "http") GTEST_SKIP() << "the encodings do not depend on the transport";
  for (int i = 0; i < 50; ++i) CreatePod("p" + std::to_string(i));
  HttpClientOptions json_only;
  json_only.protobuf = false;
  HttpClient json_client("127.0.0.1", server_->port(), json_only);
  auto proto_list = client_->List(Pods(), {});
  ASSERT_OK(proto_list);
  auto json_list = json_client.List(Pods(), {});
  ASSERT_OK(json_list);
  ASSERT_EQ(proto_list->items.size(), json_list->items.size());
  EXPECT_EQ(proto_list->resource_version, json_list->resource_version);
  for (size_t i = 0; i < json_list->items.size(); ++i) {
    EXPECT_EQ(api::EncodeJson(*proto_list->items[i]), api::EncodeJson(*json_list->items[i]));
  }
}

TEST_P(HttpOnlyTest, RawRequests) {
  auto version = dynamic_cast<HttpClient&>(*client_).Raw("GET", "/version");
  ASSERT_OK(version);
  EXPECT_EQ(version->status, 200);
  rapidjson::Document doc;
  doc.Parse(version->body.c_str());
  ASSERT_TRUE(doc.IsObject());
  EXPECT_TRUE(doc.HasMember("gitVersion"));
}

}  // namespace
}  // namespace allot::client

namespace allot::client {
namespace {

// TLS failures are clear errors, not a retry loop: 401 with OpenSSL's reason.
class TlsFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    const TestPki& pki = SharedPki();
    apiserver::ApiServerOptions options;
    options.tls = apiserver::ApiServerTls{pki.server.cert_pem, pki.server.key_pem, pki.ca.cert_pem};
    server_ = std::make_unique<apiserver::ApiServer>(store_, clock_, options);
    ASSERT_TRUE(server_->Start().ok());
  }
  Status TryGet(HttpClientOptions o, const std::string& host = "127.0.0.1") {
    o.workers = 1;
    auto c = HttpClient::FromUrl("https://" + host + ":" + std::to_string(server_->port()), o);
    if (!c.ok()) return c.status();
    auto r = (*c)->List(Pods(), {});
    return r.ok() ? Status::Ok() : r.status();
  }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  std::unique_ptr<apiserver::ApiServer> server_;
};

TEST_F(TlsFailureTest, ServerCertificateNotSignedByTheTrustedCA) {
  HttpClientOptions o;
  o.tls.ca_pem = pki::NewCA("someone-else", std::chrono::hours(1))->cert_pem;
  Status st = TryGet(o);
  EXPECT_EQ(st.code(), StatusCode::kUnauthorized);
  EXPECT_NE(st.message().find("certificate verify failed"), std::string::npos) << st.message();
  // insecure-skip-tls-verify connects anyway.
  HttpClientOptions insecure;
  insecure.tls.insecure_skip_verify = true;
  EXPECT_TRUE(TryGet(insecure).ok());
}

TEST_F(TlsFailureTest, ServerNameNotInTheCertificate) {
  HttpClientOptions o;
  o.tls.ca_pem = SharedPki().ca.cert_pem;
  o.tls.server_name = "elsewhere.example";
  Status st = TryGet(o);
  EXPECT_EQ(st.code(), StatusCode::kUnauthorized);
  o.tls.server_name = "localhost";  // in the certificate's names
  EXPECT_TRUE(TryGet(o).ok()) << TryGet(o).ToString();
}

TEST_F(TlsFailureTest, ClientCertificateFromAnotherCAIsRefused) {
  auto other = pki::NewCA("other", std::chrono::hours(1));
  auto cert = pki::Issue(*other, {.common_name = "mallory", .client = true});
  ASSERT_TRUE(cert.ok());
  HttpClientOptions o;
  o.tls.ca_pem = SharedPki().ca.cert_pem;
  o.tls.cert_pem = cert->cert_pem;
  o.tls.key_pem = cert->key_pem;
  EXPECT_FALSE(TryGet(o).ok());
  // Without a certificate the connection is allowed (authentication decides later).
  HttpClientOptions none;
  none.tls.ca_pem = SharedPki().ca.cert_pem;
  EXPECT_TRUE(TryGet(none).ok());
}

// Clients that connect and never start the handshake hold no server thread: with more of them
// than io threads, a real client is served at once; each is dropped after handshake_timeout.
TEST_F(TlsFailureTest, AHandshakeThatNeverCompletesHoldsNoThreadAndIsDropped) {
  server_.reset();
  const TestPki& pki = SharedPki();
  apiserver::ApiServerOptions options;
  options.tls = apiserver::ApiServerTls{pki.server.cert_pem, pki.server.key_pem, pki.ca.cert_pem};
  options.threads = 2;
  options.handshake_timeout = std::chrono::milliseconds(300);
  server_ = std::make_unique<apiserver::ApiServer>(store_, clock_, options);
  ASSERT_TRUE(server_->Start().ok());
  namespace net = boost::asio;
  net::io_context io;
  std::vector<net::ip::tcp::socket> silent;
  for (int i = 0; i < 8; ++i) {
    silent.emplace_back(io);
    silent.back().connect({net::ip::make_address("127.0.0.1"), server_->port()});
    timeval limit{10, 0};  // a server that never drops them fails the test, not hangs it
    ::setsockopt(silent.back().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  }
  HttpClientOptions o;
  o.tls.ca_pem = pki.ca.cert_pem;
  EXPECT_TRUE(TryGet(o).ok());
  // Each silent connection is closed by the server: a blocking read ends with EOF.
  for (auto& s : silent) {
    char byte;
    boost::system::error_code ec;
    s.read_some(net::buffer(&byte, 1), ec);
    EXPECT_TRUE(ec == net::error::eof || ec == net::error::connection_reset) << ec.message();
  }
}

TEST_F(TlsFailureTest, PlainHttpToATlsPortFailsFast) {
  HttpClientOptions o;
  o.workers = 1;
  o.request_timeout = std::chrono::milliseconds(5000);
  HttpClient c("127.0.0.1", server_->port(), o);
  auto r = c.List(Pods(), {});
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace allot::client

namespace allot::client {
namespace {

// An API server over TLS that authenticates: client certificates, a token file, no anonymous.
class AuthenticatedServerTest : public TlsFailureTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    const TestPki& pki = SharedPki();
    apiserver::ApiServerOptions options;
    options.tls = apiserver::ApiServerTls{pki.server.cert_pem, pki.server.key_pem, pki.ca.cert_pem};
    auto authn = apiserver::authn::Authenticator::Create(
        {.token_file_csv = "s3cret,bob,uid-7,\"dev,ops\"\n", .token_file_name = "tokens.csv"});
    ASSERT_TRUE(authn.ok());
    options.authenticator = *authn;
    server_ = std::make_unique<apiserver::ApiServer>(store_, clock_, options);
    ASSERT_TRUE(server_->Start().ok());
  }
  Result<HttpResponse> Call(HttpClientOptions o, const std::string& method,
                            const std::string& target) {
    o.workers = 1;
    o.tls.ca_pem = SharedPki().ca.cert_pem;
    auto c = HttpClient::FromUrl("https://127.0.0.1:" + std::to_string(server_->port()), o);
    if (!c.ok()) return c.status();
    return (*c)->Raw(method, target, method == "POST" ? "{}" : "");
  }
  static constexpr char kWhoAmI[] = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
};

TEST_F(AuthenticatedServerTest, ClientCertificateAndTokenIdentifyTheUser) {
  HttpClientOptions cert;
  cert.tls.cert_pem = SharedPki().client.cert_pem;
  cert.tls.key_pem = SharedPki().client.key_pem;
  auto r = Call(cert, "POST", kWhoAmI);
  ASSERT_OK(r);
  EXPECT_EQ(r->status, 201);
  EXPECT_NE(r->body.find(R"("userInfo":{"username":"tester","groups":["testers",)"
                         R"("system:authenticated"]})"),
            std::string::npos)
      << r->body;
  HttpClientOptions token;
  token.bearer_token = "s3cret";
  r = Call(token, "POST", kWhoAmI);
  ASSERT_OK(r);
  EXPECT_NE(r->body.find(R"({"username":"bob","uid":"uid-7","groups":["dev","ops",)"
                         R"("system:authenticated"]})"),
            std::string::npos)
      << r->body;
  r = Call(token, "GET", "/api/v1/namespaces/default/pods");
  ASSERT_OK(r);
  EXPECT_EQ(r->status, 200);
}

// Token spraying: wrong tokens are answered 401 at once, with no delay or lockout that could
// hold a thread, and a client with the right token is served as before.
TEST_F(AuthenticatedServerTest, ManyWrongTokensDoNotStopOthers) {
  for (int guess = 0; guess < 10; ++guess) {
    HttpClientOptions o;
    o.workers = 1;
    o.tls.ca_pem = SharedPki().ca.cert_pem;
    o.bearer_token = "guess-" + std::to_string(guess);
    auto sprayer = HttpClient::FromUrl("https://127.0.0.1:" + std::to_string(server_->port()), o);
    ASSERT_OK(sprayer);
    for (int i = 0; i < 30; ++i) {
      auto r = (*sprayer)->Raw("GET", "/api/v1/namespaces/default/pods");
      ASSERT_OK(r);
      ASSERT_EQ(r->status, 401);
    }
  }
  HttpClientOptions token;
  token.bearer_token = "s3cret";
  auto r = Call(token, "GET", "/api/v1/namespaces/default/pods");
  ASSERT_OK(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(AuthenticatedServerTest, NoOrWrongCredentialsAre401ButProbesAnswer) {
  HttpClientOptions none;
  for (const char* target : {"/api/v1/namespaces/default/pods", "/version", "/metrics"}) {
    auto r = Call(none, "GET", target);
    ASSERT_OK(r);
    EXPECT_EQ(r->status, 401) << target;
    EXPECT_NE(r->body.find(R"("reason":"Unauthorized")"), std::string::npos) << r->body;
    EXPECT_NE(r->body.find(R"("message":"Unauthorized")"), std::string::npos) << r->body;
  }
  HttpClientOptions wrong;
  wrong.bearer_token = "guess";
  auto r = Call(wrong, "GET", "/api/v1/namespaces/default/pods");
  ASSERT_OK(r);
  EXPECT_EQ(r->status, 401);
  r = Call(none, "GET", "/healthz");
  ASSERT_OK(r);
  EXPECT_EQ(r->status, 200);
}

}  // namespace
}  // namespace allot::client

namespace allot::client {
namespace {

// A server that answers 429 with Retry-After `throttle` times, then 200: the client waits what it
// is told (through the endpoint's sleep, so the test does not) and sends again.
TEST(HttpThrottling, ClientWaitsOutRetryAfterThenGetsTheAnswer) {
  namespace net = boost::asio;
  net::io_context ioc;
  net::ip::tcp::acceptor acceptor(ioc, {net::ip::make_address("127.0.0.1"), 0});
  const uint16_t port = acceptor.local_endpoint().port();
  std::thread server([&] {
    net::ip::tcp::socket s(ioc);
    acceptor.accept(s);
    std::string buf;
    char chunk[4096];
    for (int answered = 0; answered < 3; ++answered) {
      while (buf.find("\r\n\r\n") == std::string::npos) {
        boost::system::error_code ec;
        size_t n = s.read_some(net::buffer(chunk), ec);
        if (ec) return;
        buf.append(chunk, n);
      }
      buf.erase(0, buf.find("\r\n\r\n") + 4);
      std::string body = answered < 2 ? R"({"kind":"Status","reason":"TooManyRequests"})" : "{}";
      std::string head = answered < 2 ? "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\n"
                                      : "HTTP/1.1 200 OK\r\n";
      std::string res = head + "Content-Type: application/json\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body;
      net::write(s, net::buffer(res));
    }
  });
  HttpEndpoint ep;
  ep.host = "127.0.0.1";
  ep.port = port;
  std::vector<std::chrono::seconds> waits;
  ep.sleep = [&](std::chrono::seconds s) { waits.push_back(s); };
  HttpConnection conn(ep);
  auto r = conn.RoundTrip(HttpRequest{"GET", "/api/v1/pods", {}, {}});
  server.join();
  ASSERT_OK(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(waits,
            (std::vector<std::chrono::seconds>{std::chrono::seconds(3), std::chrono::seconds(3)}));
}

}  // namespace
}  // namespace allot::client

// Shared fixture of the API server tests: a memory-backed Store, an ApiServer on 127.0.0.1:0
// and an HTTP client, all on a FakeClock (watch timeouts and bookmarks are driven by advancing
// it and calling WakeStreams, never by sleeping).
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <memory>
#include <string>
#include <string_view>

#include "apiserver/server.h"
#include "common/time.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/http_client.h"

namespace allot::apiserver {

// A parsed JSON body with pointer lookups: J(body)["/metadata/name"] == "p1".
class J {
 public:
  explicit J(std::string_view text) { doc_.Parse(text.data(), text.size()); }
  bool ok() const { return !doc_.HasParseError(); }
  // The value at a JSON pointer: strings unquoted, anything else as compact JSON,
  // "<missing>" when absent.
  std::string operator[](const char* pointer) const {
    const rapidjson::Value* v = rapidjson::Pointer(pointer).Get(doc_);
    if (!v) return "<missing>";
    if (v->IsString()) return std::string(v->GetString(), v->GetStringLength());
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    v->Accept(w);
    return std::string(buf.GetString(), buf.GetSize());
  }
  size_t Size(const char* pointer) const {
    const rapidjson::Value* v = rapidjson::Pointer(pointer).Get(doc_);
    if (!v) return 0;
    if (v->IsArray()) return v->Size();
    if (v->IsObject()) return v->MemberCount();
    return 0;
  }
  const rapidjson::Document& doc() const { return doc_; }

 private:
  rapidjson::Document doc_;
};

class ApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), clock_, StoreOpts());
    ASSERT_TRUE(store_->Open().ok());
    ApiServerOptions options;
    options.bookmark_interval = std::chrono::seconds(1);
    options.max_body_bytes = 64 * 1024;  // small, so the 413 test stays cheap
    options.metrics = &registry_;
    server_ = std::make_unique<ApiServer>(*store_, clock_, options);
    Status s = server_->Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
    client_ = std::make_unique<allot::testing::HttpClient>("127.0.0.1", server_->port());
  }

  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
    server_.reset();
    if (store_) store_->Close();
  }

  virtual store::StoreOptions StoreOpts() { return {}; }

  // The response, or a failed test.
  allot::testing::HttpResponse Must(Result<allot::testing::HttpResponse> r) {
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : allot::testing::HttpResponse{};
  }

  allot::testing::HttpResponse Get(std::string_view target,
                                   const allot::testing::HttpHeaders& headers = {}) {
    return Must(client_->Get(target, headers));
  }
  allot::testing::HttpResponse Post(std::string_view target, std::string_view body,
                                    const allot::testing::HttpHeaders& headers = {}) {
    return Must(client_->Post(target, body, headers));
  }
  allot::testing::HttpResponse Put(std::string_view target, std::string_view body) {
    return Must(client_->Put(target, body));
  }
  allot::testing::HttpResponse Patch(std::string_view target, std::string_view body,
                                     std::string_view type) {
    return Must(client_->Patch(target, body, type));
  }
  allot::testing::HttpResponse Delete(std::string_view target, std::string_view body = {}) {
    return Must(client_->Delete(target, body));
  }

  static std::string PodJson(std::string_view name, std::string_view extra_spec = {},
                             std::string_view extra_meta = {}) {
    std::string spec = R"("containers":[{"name":"c","image":"busybox"}])";
    if (!extra_spec.empty()) spec += "," + std::string(extra_spec);
    std::string meta = "\"name\":\"" + std::string(name) + "\"";
    if (!extra_meta.empty()) meta += "," + std::string(extra_meta);
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{)" + meta + R"(},"spec":{)" + spec + "}}";
  }

  // Creates pod `name` in "default"; returns its JSON.
  std::string CreatePod(std::string_view name, std::string_view extra_spec = {}) {
    auto res = Post("/api/v1/namespaces/default/pods", PodJson(name, extra_spec));
    EXPECT_EQ(res.status, 201) << res.body;
    return res.body;
  }

  static constexpr const char* kPods = "/api/v1/namespaces/default/pods";

  FakeClock clock_;
  metrics::Registry registry_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<allot::testing::HttpClient> client_;
};

}  // namespace allot::apiserver

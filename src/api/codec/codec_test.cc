#include "api/codec/codec.h"

#include <gtest/gtest.h>

#include "api/core/types.h"
#include "api/machinery/scheme.h"

namespace allot::api {
namespace {

TEST(CodecTest, NamespaceRoundTrip) {
  auto decoded = DecodeJson(
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a","labels":{"a":"b"}},)"
      R"("spec":{"finalizers":["kubernetes"]}})",
      {});
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  const auto* ns = As<Namespace>(*decoded->object);
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->metadata.name, "team-a");
  EXPECT_EQ(ns->spec.finalizers, std::vector<std::string>{"kubernetes"});
  EXPECT_EQ(EncodeJson(*ns),
            R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"team-a","labels":{"a":"b"}},)"
            R"("spec":{"finalizers":["kubernetes"]},"status":{}})");
}

TEST(CodecTest, StrictRejectsUnknownAndDuplicateFields) {
  DecodeOptions opts;
  opts.strict = true;
  opts.expected = &Namespace::Type();
  auto r = DecodeJson(R"({"metadata":{"name":"x","name":"y","bogus":1},"spec":{"zzz":true}})", opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "strict decoding error: unknown field \"metadata.bogus\", unknown field \"spec.zzz\", "
            "duplicate field \"metadata.name\"");
}

// Another kind than the one expected: as kube-apiserver's scheme says it when the kind is one it
// knows, else the kinds named.
TEST(CodecTest, AnotherKindIsRefusedInKubernetesWords) {
  DecodeOptions opts;
  opts.expected = &Namespace::Type();
  auto known = DecodeJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}})", opts);
  ASSERT_FALSE(known.ok());
  EXPECT_EQ(known.status().message(),
            "Pod in version \"v1\" cannot be handled as a Namespace: converting (v1.Pod) to "
            "(core.Namespace): unknown conversion");
  auto unknown = DecodeJson(R"({"kind":"Nope","metadata":{"name":"x"}})", opts);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "the kind in the data (Nope) does not match the expected kind (Namespace)");
}

TEST(CodecTest, NonStrictWarnsAboutUnknownFields) {
  DecodeOptions opts;
  opts.expected = &Namespace::Type();
  auto r = DecodeJson(R"({"metadata":{"name":"x","bogus":1}})", opts);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->warnings, std::vector<std::string>{"unknown field \"metadata.bogus\""});
}

TEST(CodecTest, TypeErrorNamesThePath) {
  auto r = DecodeJson(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"labels":{"a":3}}})", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Namespace in version \"v1\" cannot be handled as a Namespace: json: cannot unmarshal "
            "number into field metadata.labels[a] of type string");
}

TEST(CodecTest, MalformedJsonReportsPosition) {
  auto r = DecodeJson("{\n  \"kind\": \"Namespace\",\n  \"metadata\" {}}", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(r.status().message().find("line 3"), std::string::npos) << r.status().message();
}

TEST(CodecTest, UnknownKind) {
  auto r = DecodeJson(R"({"apiVersion":"v1","kind":"Frobnicator"})", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "no kind \"Frobnicator\" is registered for version \"v1\"");
}

}  // namespace
}  // namespace allot::api

namespace allot::api {
namespace {

TEST(CodecTest, DeepNestingIsRejectedNotACrash) {
  std::string deep = R"({"apiVersion":"v1","kind":"Namespace","metadata":{"annotations":)";
  deep += std::string(200000, '[');
  auto r = DecodeJson(deep, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(r.status().message().find("nested too deeply"), std::string::npos);
}

}  // namespace
}  // namespace allot::api

// PatchTypeFromContentType, RFC 6902 JSON patch and RFC 7386 merge patch through ApplyPatch.
// Strategic merge and apply are in api/patch/strategic_merge_test.cc.
#include "api/patch/patch.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "api/machinery/meta.h"
#include "api/machinery/reflect.h"

namespace allot::api {
namespace {

// Semantic JSON equality (object member order ignored), with both texts in the failure message.
::testing::AssertionResult JsonEq(const std::string& actual, const std::string& expected) {
  rapidjson::Document a, e;
  a.Parse(actual.c_str());
  e.Parse(expected.c_str());
  if (a.HasParseError()) return ::testing::AssertionFailure() << "unparsable: " << actual;
  if (e.HasParseError()) return ::testing::AssertionFailure() << "bad expectation: " << expected;
  if (a == e) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "\n  actual:   " << actual << "\n  expected: " << expected;
}

const SchemaNode& AnySchema() { return reflect::SchemaOf<ObjectMeta>(); }

Result<std::string> JsonPatch(const std::string& doc, const std::string& patch) {
  return ApplyPatch(PatchType::kJsonPatch, doc, patch, AnySchema());
}

Result<std::string> JsonPatchDetailed(const std::string& doc, const std::string& patch) {
  return ApplyPatchDetailed(PatchType::kJsonPatch, doc, patch, AnySchema());
}

// --- content types ----------------------------------------------------------------------------

TEST(PatchTypeTest, ParsesTheFourMediaTypes) {
  EXPECT_EQ(PatchTypeFromContentType("application/json-patch+json"), PatchType::kJsonPatch);
  EXPECT_EQ(PatchTypeFromContentType("application/merge-patch+json"), PatchType::kMergePatch);
  EXPECT_EQ(PatchTypeFromContentType("application/strategic-merge-patch+json"),
            PatchType::kStrategicMergePatch);
  EXPECT_EQ(PatchTypeFromContentType("application/apply-patch+yaml"), PatchType::kApplyPatch);
}

TEST(PatchTypeTest, IgnoresParametersSpacesAndCase) {
  EXPECT_EQ(PatchTypeFromContentType("application/merge-patch+json; charset=utf-8"),
            PatchType::kMergePatch);
  EXPECT_EQ(PatchTypeFromContentType("  Application/JSON-Patch+JSON ;q=1"), PatchType::kJsonPatch);
}

TEST(PatchTypeTest, RejectsOtherTypes) {
  EXPECT_EQ(PatchTypeFromContentType("application/json"), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType("application/apply-patch+cbor"), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType(""), std::nullopt);
}

TEST(PatchTypeTest, ContentTypeRoundTrips) {
  for (PatchType t : {PatchType::kJsonPatch, PatchType::kMergePatch,
                      PatchType::kStrategicMergePatch, PatchType::kApplyPatch}) {
    EXPECT_EQ(PatchTypeFromContentType(ContentTypeOf(t)), t);
  }
}

// --- RFC 6902 Appendix A ----------------------------------------------------------------------

struct Rfc6902Case {
  const char* name;
  const char* doc;
  const char* patch;
  const char* expected;  // nullptr: the patch must fail
};

class Rfc6902Test : public ::testing::TestWithParam<Rfc6902Case> {};

TEST_P(Rfc6902Test, AppendixA) {
  const Rfc6902Case& c = GetParam();
  Result<std::string> r = JsonPatch(c.doc, c.patch);
  if (c.expected == nullptr) {
    ASSERT_FALSE(r.ok()) << *r;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << r.status().ToString();
    return;
  }
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(JsonEq(*r, c.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Rfc6902, Rfc6902Test,
    ::testing::Values(
        Rfc6902Case{"A1_AddObjectMember", R"({"foo":"bar"})",
                    R"([{"op":"add","path":"/baz","value":"qux"}])",
                    R"({"baz":"qux","foo":"bar"})"},
        Rfc6902Case{"A2_AddArrayElement", R"({"foo":["bar","baz"]})",
                    R"([{"op":"add","path":"/foo/1","value":"qux"}])",
                    R"({"foo":["bar","qux","baz"]})"},
        Rfc6902Case{"A3_RemoveObjectMember", R"({"baz":"qux","foo":"bar"})",
                    R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
        Rfc6902Case{"A4_RemoveArrayElement", R"({"foo":["bar","qux","baz"]})",
                    R"([{"op":"remove","path":"/foo/1"}])", R"({"foo":["bar","baz"]})"},
        Rfc6902Case{"A5_ReplaceValue", R"({"baz":"qux","foo":"bar"})",
                    R"([{"op":"replace","path":"/baz","value":"boo"}])",
                    R"({"baz":"boo","foo":"bar"})"},
        Rfc6902Case{"A6_MoveValue",
                    R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
                    R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
                    R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
        Rfc6902Case{"A7_MoveArrayElement", R"({"foo":["all","grass","cows","eat"]})",
                    R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
                    R"({"foo":["all","cows","eat","grass"]})"},
        Rfc6902Case{"A8_TestSuccess", R"({"baz":"qux","foo":["a",2,"c"]})",
                    R"([{"op":"test","path":"/baz","value":"qux"},
                        {"op":"test","path":"/foo/1","value":2}])",
                    R"({"baz":"qux","foo":["a",2,"c"]})"},
        Rfc6902Case{"A9_TestError", R"({"baz":"qux"})",
                    R"([{"op":"test","path":"/baz","value":"bar"}])", nullptr},
        Rfc6902Case{"A10_AddNestedMemberObject", R"({"foo":"bar"})",
                    R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
                    R"({"foo":"bar","child":{"grandchild":{}}})"},
        Rfc6902Case{"A11_IgnoreUnrecognizedElements", R"({"foo":"bar"})",
                    R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
                    R"({"foo":"bar","baz":"qux"})"},
        Rfc6902Case{"A12_AddToNonexistentTarget", R"({"foo":"bar"})",
                    R"([{"op":"add","path":"/baz/bat","value":"qux"}])", nullptr},
        // A.13 (a repeated "op") is "an error" in the RFC; Go's decoder keeps the last member,
        // so this is a remove of a missing member, which fails too.
        Rfc6902Case{"A13_RepeatedOp", R"({"foo":"bar"})",
                    R"([{"op":"add","path":"/baz","value":"qux","op":"remove"}])", nullptr},
        Rfc6902Case{"A14_EscapeOrdering", R"({"/":9,"~1":10})",
                    R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})"},
        Rfc6902Case{"A15_StringIsNotNumber", R"({"/":9,"~1":10})",
                    R"([{"op":"test","path":"/~01","value":"10"}])", nullptr},
        Rfc6902Case{"A16_AddArrayValue", R"({"foo":["bar"]})",
                    R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
                    R"({"foo":["bar",["abc","def"]]})"}),
    [](const ::testing::TestParamInfo<Rfc6902Case>& info) { return info.param.name; });

// --- JSON patch details -----------------------------------------------------------------------

TEST(JsonPatchTest, PatchesAPod) {
  std::string pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},
      "spec":{"containers":[{"name":"c","image":"nginx:1"}]}})";
  Result<std::string> r = JsonPatch(pod, R"([
      {"op":"replace","path":"/spec/containers/0/image","value":"nginx:2"},
      {"op":"add","path":"/metadata/labels/app.kubernetes.io~1name","value":"web"},
      {"op":"remove","path":"/metadata/labels/a"}])");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(JsonEq(*r, R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","labels":{"app.kubernetes.io/name":"web"}},
      "spec":{"containers":[{"name":"c","image":"nginx:2"}]}})"));
}

TEST(JsonPatchTest, FailedOperationIsThe422TheApiserverSends) {
  Result<std::string> r = JsonPatch(R"({"a":1})", R"([{"op":"remove","path":"/b"}])");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(r.status().message(), "the server rejected our request due to an error in our request");
  EXPECT_TRUE(r.status().details().causes.empty());
}

TEST(JsonPatchTest, DetailedMessages) {
  struct Case {
    const char* patch;
    const char* message;
  };
  for (const Case& c : {
           Case{R"([{"op":"remove","path":"/b"}])",
                "remove operation does not apply: doc is missing path: \"/b\": missing value"},
           Case{R"([{"op":"replace","path":"/b","value":1}])",
                "replace operation does not apply: doc is missing key: /b: missing value"},
           Case{R"([{"op":"test","path":"/a","value":2}])", "testing value /a failed: test failed"},
           Case{R"([{"op":"frobnicate","path":"/a"}])", "Unexpected kind: frobnicate"},
           Case{R"([{"path":"/a"}])", "Unexpected kind: unknown"},
           Case{R"([null])", "Unexpected kind: unknown"},
           Case{R"([{"op":"add","value":1}])", "operation missing path field: missing value"},
           Case{R"([{"op":"add","path":"/x"}])",
                "add operation missing value field: missing value"},
           Case{R"([{"op":"add","path":"a","value":1}])", "invalid JSON pointer \"a\""},
           Case{R"([{"op":"add","path":"/a~2","value":1}])", "invalid JSON pointer \"/a~2\""},
       }) {
    Result<std::string> r = JsonPatchDetailed(R"({"a":1})", c.patch);
    ASSERT_FALSE(r.ok()) << c.patch;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << c.patch;
    EXPECT_EQ(r.status().message(), c.message) << c.patch;
  }
}

TEST(JsonPatchTest, ArrayIndexRules) {
  const std::string doc = R"({"l":[0,1,2]})";
  EXPECT_TRUE(
      JsonEq(*JsonPatch(doc, R"([{"op":"add","path":"/l/3","value":3}])"), R"({"l":[0,1,2,3]})"));
  EXPECT_TRUE(
      JsonEq(*JsonPatch(doc, R"([{"op":"add","path":"/l/0","value":9}])"), R"({"l":[9,0,1,2]})"));
  EXPECT_FALSE(JsonPatch(doc, R"([{"op":"add","path":"/l/4","value":3}])").ok());
  EXPECT_FALSE(JsonPatch(doc, R"([{"op":"add","path":"/l/01","value":3}])").ok());
  EXPECT_FALSE(JsonPatch(doc, R"([{"op":"remove","path":"/l/-"}])").ok());
  EXPECT_FALSE(JsonPatch(doc, R"([{"op":"remove","path":"/l/-1"}])").ok());  // no negative indices
  EXPECT_FALSE(JsonPatch(doc, R"([{"op":"replace","path":"/l/3","value":1}])").ok());
}

TEST(JsonPatchTest, RootPointer) {
  EXPECT_TRUE(JsonEq(*JsonPatch(R"({"a":1})", R"([{"op":"replace","path":"","value":{"b":2}}])"),
                     R"({"b":2})"));
  EXPECT_TRUE(JsonEq(*JsonPatch(R"({"a":1})", R"([{"op":"test","path":"","value":{"a":1}}])"),
                     R"({"a":1})"));
  EXPECT_FALSE(JsonPatch(R"({"a":1})", R"([{"op":"remove","path":""}])").ok());
}

TEST(JsonPatchTest, TestComparesNumbersByValueAndObjectsUnordered) {
  EXPECT_TRUE(JsonPatch(R"({"n":1.0,"o":{"x":1,"y":2}})",
                        R"([{"op":"test","path":"/n","value":1},
                            {"op":"test","path":"/o","value":{"y":2,"x":1}}])")
                  .ok());
  EXPECT_FALSE(JsonPatch(R"({"a":null})", R"([{"op":"test","path":"/b","value":null}])").ok());
}

TEST(JsonPatchTest, MoveIntoOwnChildFails) {
  EXPECT_FALSE(JsonPatch(R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/c"}])").ok());
  EXPECT_TRUE(JsonEq(*JsonPatch(R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a"}])"),
                     R"({"a":{"b":1}})"));
}

TEST(JsonPatchTest, CopyDuplicatesAndFailuresAreAtomic) {
  EXPECT_TRUE(JsonEq(*JsonPatch(R"({"a":{"b":[1]}})", R"([{"op":"copy","from":"/a","path":"/c"}])"),
                     R"({"a":{"b":[1]},"c":{"b":[1]}})"));
  // The first operation succeeds, the second fails: nothing is applied.
  Result<std::string> r = JsonPatch(R"({"a":1})", R"([{"op":"add","path":"/b","value":2},
                                                      {"op":"remove","path":"/zzz"}])");
  EXPECT_FALSE(r.ok());
}

TEST(JsonPatchTest, CopyAmplificationIsLimited) {
  // Each copy appends the list to itself, doubling it; the apiserver stops at 3 MiB copied in
  // total (JSONPatchMaxCopyBytes).
  std::string patch =
      R"([{"op":"add","path":"/a","value":["0123456789012345678901234567890123456789"]})";
  for (int i = 0; i < 40; ++i) {
    patch += R"(,{"op":"copy","from":"/a","path":"/a/-"})";
  }
  patch += "]";
  Result<std::string> r = JsonPatchDetailed("{}", patch);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("Unable to copy, the accumulated size increase of copy"),
            std::string::npos)
      << r.status().message();
}

TEST(JsonPatchTest, BodyShapeErrorsAre400) {
  Result<std::string> r = JsonPatch("{}", R"({"op":"add"})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "json: cannot unmarshal object into Go value of type jsonpatch.Patch");

  r = JsonPatch("{}", R"(["add"])");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "json: cannot unmarshal string into Go value of type jsonpatch.Operation");
}

TEST(JsonPatchTest, MalformedBodyIs400WithPosition) {
  Result<std::string> r = JsonPatch("{}", "[\n  {\"op\": \"add\",}\n]");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(r.status().message().find("invalid JSON at line 2, column"), std::string::npos)
      << r.status().message();
}

TEST(JsonPatchTest, NullBodyIsAnEmptyPatch) {
  EXPECT_TRUE(JsonEq(*JsonPatch(R"({"a":1})", "null"), R"({"a":1})"));
  EXPECT_TRUE(JsonEq(*JsonPatch(R"({"a":1})", "[]"), R"({"a":1})"));
}

TEST(JsonPatchTest, TooManyOperationsIs413) {
  std::string patch = "[";
  for (int i = 0; i < 10001; ++i)
    patch += std::string(i ? "," : "") + R"({"op":"test","path":"","value":{}})";
  patch += "]";
  Result<std::string> r = JsonPatch("{}", patch);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kRequestEntityTooLarge);
  EXPECT_EQ(r.status().message(),
            "Request entity too large: The allowed maximum operations in a JSON patch is 10000, "
            "got 10001");
}

TEST(JsonPatchTest, DeepNestingIsRejected) {
  std::string deep(2000, '[');
  deep += std::string(2000, ']');
  Result<std::string> r = JsonPatch("{}", deep);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
}

// --- RFC 7386 Appendix A ----------------------------------------------------------------------

struct Rfc7386Case {
  const char* original;
  const char* patch;
  const char* result;
};

class Rfc7386Test : public ::testing::TestWithParam<Rfc7386Case> {};

TEST_P(Rfc7386Test, AppendixA) {
  const Rfc7386Case& c = GetParam();
  Result<std::string> r = JsonMergePatch(c.original, c.patch);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(JsonEq(*r, c.result));
}

INSTANTIATE_TEST_SUITE_P(
    Rfc7386, Rfc7386Test,
    ::testing::Values(Rfc7386Case{R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
                      Rfc7386Case{R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
                      Rfc7386Case{R"({"a":"b"})", R"({"a":null})", R"({})"},
                      Rfc7386Case{R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
                      Rfc7386Case{R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
                      Rfc7386Case{R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
                      Rfc7386Case{R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})",
                                  R"({"a":{"b":"d"}})"},
                      Rfc7386Case{R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
                      Rfc7386Case{R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
                      Rfc7386Case{R"({"a":"b"})", R"(["c"])", R"(["c"])"},
                      Rfc7386Case{R"({"a":"foo"})", "null", "null"},
                      Rfc7386Case{R"({"a":"foo"})", R"("bar")", R"("bar")"},
                      Rfc7386Case{R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
                      Rfc7386Case{R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
                      Rfc7386Case{R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"}));

// --- merge patch as the apiserver applies it --------------------------------------------------

// Zero with a large exponent is zero (RapidJSON 1.1.0's full-precision path turned "0e38" into
// -1.9e227; the fuzzer found it).
TEST(MergePatchTest, ZeroWithAnExponentIsZero) {
  Result<std::string> r = JsonMergePatch(R"({"a":1})", R"({"a":0e38,"b":-0E5,"c":0.0e-400})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  ASSERT_TRUE(d.IsObject()) << *r;
  EXPECT_EQ(d["a"].GetDouble(), 0.0) << *r;
  EXPECT_EQ(d["b"].GetDouble(), 0.0) << *r;
  EXPECT_EQ(d["c"].GetDouble(), 0.0) << *r;
}

Result<std::string> MergePatch(const std::string& doc, const std::string& patch) {
  return ApplyPatch(PatchType::kMergePatch, doc, patch, AnySchema());
}

TEST(MergePatchTest, ReplacesListsAndDeletesWithNull) {
  std::string pod = R"({"metadata":{"name":"p","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},
      "spec":{"containers":[{"name":"a","image":"i1"},{"name":"b","image":"i2"}]}})";
  Result<std::string> r = MergePatch(pod, R"({"metadata":{"labels":{"a":null,"c":"3"},
      "finalizers":["z"]},"spec":{"containers":[{"name":"b","image":"i3"}]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(JsonEq(*r, R"({"metadata":{"name":"p","labels":{"b":"2","c":"3"},"finalizers":["z"]},
      "spec":{"containers":[{"name":"b","image":"i3"}]}})"));
}

TEST(MergePatchTest, NullAndScalarBodiesAreRejectedLikeKubernetes) {
  for (const char* body : {"null", R"("bar")", "1", "true"}) {
    Result<std::string> r = MergePatch(R"({"a":1})", body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(r.status().message(), "Invalid JSON Patch");
  }
}

TEST(MergePatchTest, MalformedBodyIs400WithPosition) {
  Result<std::string> r = MergePatch(R"({"a":1})", R"({"a": })");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(r.status().message().find("invalid JSON at line 1, column 7"), std::string::npos)
      << r.status().message();
}

TEST(MergePatchTest, DuplicateKeysInTheBodyKeepTheLast) {
  EXPECT_TRUE(JsonEq(*MergePatch(R"({"a":1})", R"({"a":2,"a":3})"), R"({"a":3})"));
}

TEST(PatchTest, InvalidOriginalIsAnInternalError) {
  Result<std::string> r = MergePatch("{", R"({"a":1})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternalError);
}

}  // namespace
}  // namespace allot::api

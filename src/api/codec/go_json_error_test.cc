#include "api/codec/go_json_error.h"

#include <gtest/gtest.h>

namespace allot::api {
namespace {

// The messages encoding/json gives (Go 1.26) for the same text.
TEST(GoJsonSyntaxError, ReadsAsEncodingJson) {
  EXPECT_EQ(GoJsonSyntaxError(R"({"kind":"ConfigMap"})"), "");
  EXPECT_EQ(GoJsonSyntaxError(" [1, 2] \n"), "");
  EXPECT_EQ(GoJsonSyntaxError(R"({"apiVersion":"v1","kind":"ConfigMap",)"),
            "unexpected end of JSON input");
  EXPECT_EQ(GoJsonSyntaxError("   "), "unexpected end of JSON input");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a" 1})"), "invalid character '1' after object key");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a":1 "b":2})"),
            "invalid character '\"' after object key:value pair");
  EXPECT_EQ(GoJsonSyntaxError(R"({'a':1})"),
            "invalid character '\\'' looking for beginning of object key string");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a":x})"), "invalid character 'x' looking for beginning of value");
  EXPECT_EQ(GoJsonSyntaxError("[1 2]"), "invalid character '2' after array element");
  EXPECT_EQ(GoJsonSyntaxError("{} {}"), "invalid character '{' after top-level value");
  EXPECT_EQ(GoJsonSyntaxError("nope"), "invalid character 'o' in literal null (expecting 'u')");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a":tru})"),
            "invalid character '}' in literal true (expecting 'e')");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a":"\q"})"), "invalid character 'q' in string escape code");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a":"\u12x4"})"),
            "invalid character 'x' in \\u hexadecimal character escape");
}

}  // namespace
}  // namespace allot::api

// Expectations the API groups' tests share (tests only).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "api/codec/codec.h"

namespace allot::api::testing {

// Kubernetes' message for a value that is not a lowercase RFC 1123 subdomain.
inline const std::string kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

// Decodes `json` strictly, encodes it again and decodes that: the encoding must equal the input
// byte for byte and both decodings the same object. Returns the object (null on failure).
inline std::unique_ptr<Object> ExpectRoundTrip(const std::string& json) {
  DecodeOptions opts;
  opts.strict = true;
  auto first = DecodeJson(json, opts);
  EXPECT_TRUE(first.ok()) << first.status().ToString();
  if (!first.ok()) return nullptr;
  std::string encoded = EncodeJson(*first->object);
  EXPECT_EQ(encoded, json);
  auto second = DecodeJson(encoded, opts);
  EXPECT_TRUE(second.ok()) << second.status().ToString();
  if (!second.ok()) return nullptr;
  EXPECT_TRUE(first->object->type().equal(*first->object, *second->object));
  return std::move(first->object);
}

}  // namespace allot::api::testing

#include "apiserver/encoding/encode_cache.h"

#include <gtest/gtest.h>

#include "api/codec/codec.h"
#include "api/core/types.h"
#include "api/protobuf.h"

namespace allot::apiserver {
namespace {

api::ObjectPtr MakePod(const std::string& name, std::string_view probe = {}) {
  auto pod = std::make_shared<api::Pod>();
  pod->metadata.name = name;
  pod->metadata.namespace_ = "default";
  pod->spec.containers.emplace_back().name = "c";
  pod->spec.containers[0].rare.edit().livenessProbe.json = std::string(probe);
  return pod;
}

// Every watcher and list of one object shares one encoding per format.
TEST(EncodeCacheTest, EachFormatIsEncodedOncePerObject) {
  EncodeCache cache;
  api::ObjectPtr pod = MakePod("a");
  auto json = cache.Encode(pod);
  auto proto = cache.EncodeProtobuf(pod);
  ASSERT_NE(json, nullptr);
  ASSERT_NE(proto, nullptr);
  EXPECT_EQ(*json, api::EncodeJson(*pod));
  std::string message;
  ASSERT_TRUE(api::EncodeProtobufMessage(*pod, message));
  EXPECT_EQ(*proto, message);
  EXPECT_EQ(cache.misses(), 2u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(cache.Encode(pod), json);  // the same bytes, not a copy
    EXPECT_EQ(cache.EncodeProtobuf(pod), proto);
  }
  EXPECT_EQ(cache.hits(), 10u);
  EXPECT_EQ(cache.misses(), 2u);
}

// An object protobuf cannot carry is remembered as such: null, and not encoded again.
TEST(EncodeCacheTest, AnObjectWithoutProtobufIsNullOnce) {
  EncodeCache cache;
  // A probe whose command is not a list (refused by the API server, not by the cache).
  api::ObjectPtr probed = MakePod("p", R"({"exec":{"command":"true"}})");
  EXPECT_EQ(cache.EncodeProtobuf(probed), nullptr);
  EXPECT_EQ(cache.EncodeProtobuf(probed), nullptr);
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_NE(cache.Encode(probed), nullptr);  // JSON always works
}

TEST(EncodeCacheTest, StaysBoundedAndCorrectWhenFull) {
  EncodeCache cache(16);
  std::vector<api::ObjectPtr> alive;
  for (int i = 0; i < 100; ++i) {
    api::ObjectPtr pod = MakePod("p" + std::to_string(i));
    auto proto = cache.EncodeProtobuf(pod);
    ASSERT_NE(proto, nullptr);
    auto back = api::DecodeProtobufMessage(api::Pod::Type(), *proto);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ((*back)->metadata.name, "p" + std::to_string(i));
    if (i % 10 == 0) alive.push_back(pod);
  }
  for (const api::ObjectPtr& pod : alive) {
    auto proto = cache.EncodeProtobuf(pod);
    ASSERT_NE(proto, nullptr);
    auto back = api::DecodeProtobufMessage(api::Pod::Type(), *proto);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ((*back)->metadata.name, pod->metadata.name);
  }
}

}  // namespace
}  // namespace allot::apiserver

#include "common/base64.h"

#include <gtest/gtest.h>

namespace allot {
namespace {

TEST(Base64, RoundTripsAndMatchesRfc4648) {
  const std::pair<std::string, std::string> cases[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
      {std::string("\0\xff\x10", 3), "AP8Q"},
  };
  for (const auto& [plain, encoded] : cases) {
    EXPECT_EQ(Base64Encode(plain), encoded);
    EXPECT_EQ(Base64Decode(encoded), plain);
  }
  EXPECT_EQ(Base64Decode("Zm9v\r\nYmFy"), "foobar");
  EXPECT_EQ(Base64Decode("Zm9"), std::nullopt);
  EXPECT_EQ(Base64Decode("Zm=v"), std::nullopt);
  EXPECT_EQ(Base64Decode("Z!9v"), std::nullopt);
}

}  // namespace
}  // namespace allot

// The one UTF-8 decoder: valid sequences of every width, and each kind of invalid input decoding
// as U+FFFD of width 1 with its reason (Go's utf8.DecodeRuneInString).
#include "common/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace allot::utf8 {
namespace {

TEST(Utf8, DecodesEveryWidth) {
  const std::string s = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";  // a é € 😀
  Rune r = Decode(s, 0);
  EXPECT_EQ(r.value, U'a');
  EXPECT_EQ(r.width, 1u);
  r = Decode(s, 1);
  EXPECT_EQ(r.value, U'\u00E9');
  EXPECT_EQ(r.width, 2u);
  r = Decode(s, 3);
  EXPECT_EQ(r.value, U'\u20AC');
  EXPECT_EQ(r.width, 3u);
  r = Decode(s, 6);
  EXPECT_EQ(r.value, U'\U0001F600');
  EXPECT_EQ(r.width, 4u);
  EXPECT_EQ(r.error, Error::kNone);
  EXPECT_TRUE(Valid(s));
  EXPECT_EQ(Runes(s), std::u32string(U"a\u00E9\u20AC\U0001F600"));
}

TEST(Utf8, InvalidInputIsReplacementOfWidthOne) {
  struct Case {
    std::string bytes;
    Error error;
  };
  const Case cases[] = {
      {"\x80", Error::kInvalidLeading},
      {"\xFF", Error::kInvalidLeading},
      {"\xE2\x82", Error::kIncomplete},
      {"\xC3(", Error::kInvalidTrailing},
      {"\xC0\x80", Error::kOverlong},
      {"\xE0\x80\x80", Error::kOverlong},
      {"\xED\xA0\x80", Error::kInvalidCodePoint},      // U+D800, a surrogate
      {"\xF4\x90\x80\x80", Error::kInvalidCodePoint},  // above U+10FFFF
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.bytes);
    Rune r = Decode(c.bytes, 0);
    EXPECT_EQ(r.value, kReplacementChar);
    EXPECT_EQ(r.width, 1u);
    EXPECT_EQ(r.error, c.error);
    EXPECT_FALSE(Valid(c.bytes));
  }
  EXPECT_EQ(Runes("a\xC3(b"), std::u32string(U"a\uFFFD(b"));
}

TEST(Utf8, AppendRoundTripsAndReplacesInvalidCodePoints) {
  std::string out;
  for (char32_t r : {U'a', U'\u00E9', U'\u20AC', U'\U0001F600'}) Append(out, r);
  EXPECT_EQ(out, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  std::string bad;
  Append(bad, 0xD800);
  Append(bad, 0x110000);
  EXPECT_EQ(bad, "\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace allot::utf8

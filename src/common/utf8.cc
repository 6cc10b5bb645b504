#include "common/utf8.h"

namespace allot::utf8 {

Rune Decode(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return Rune{c, 1, Error::kNone};
  const size_t width = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (width == 0) return Rune{kReplacementChar, 1, Error::kInvalidLeading};
  if (i + width > s.size()) return Rune{kReplacementChar, 1, Error::kIncomplete};
  char32_t value = width == 2 ? (c & 0x1F) : width == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < width; ++k) {
    const auto t = static_cast<unsigned char>(s[i + k]);
    if ((t & 0xC0) != 0x80) return Rune{kReplacementChar, 1, Error::kInvalidTrailing};
    value = (value << 6) | (t & 0x3F);
  }
  const char32_t shortest_min = width == 2 ? 0x80 : width == 3 ? 0x800 : 0x10000;
  if (value < shortest_min) return Rune{kReplacementChar, 1, Error::kOverlong};
  if ((value >= 0xD800 && value <= 0xDFFF) || value > kMaxRune) {
    return Rune{kReplacementChar, 1, Error::kInvalidCodePoint};
  }
  return Rune{value, width, Error::kNone};
}

bool Valid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    Rune r = Decode(s, i);
    if (r.error != Error::kNone) return false;
    i += r.width;
  }
  return true;
}

void Append(std::string& out, char32_t r) {
  if ((r >= 0xD800 && r <= 0xDFFF) || r > kMaxRune) r = kReplacementChar;
  if (r < 0x80) {
    out.push_back(static_cast<char>(r));
  } else if (r < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (r >> 6)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else if (r < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (r >> 12)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (r >> 18)));
    out.push_back(static_cast<char>(0x80 | ((r >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  }
}

std::u32string Runes(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    Rune r = Decode(s, i);
    out += r.value;
    i += r.width;
  }
  return out;
}

}  // namespace allot::utf8

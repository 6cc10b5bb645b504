// UTF-8, read the way Go's unicode/utf8 reads it: one decoder and one rule for invalid bytes,
// shared by the selector parser, the YAML and JSON codecs and CEL.
//
// The rule: a byte that does not start a valid sequence — a bad leading byte, a sequence cut
// short or broken by a byte that is not a continuation byte, an overlong form, a surrogate
// (U+D800..U+DFFF) or a value above U+10FFFF — decodes as U+FFFD with width 1, as
// utf8.DecodeRuneInString does; `error` tells which case it was (go-yaml reports each with its
// own message). Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace allot::utf8 {

inline constexpr char32_t kReplacementChar = 0xFFFD;
inline constexpr char32_t kMaxRune = 0x10FFFF;

enum class Error {
  kNone,
  kInvalidLeading,    // the byte cannot start a sequence (0x80..0xBF, 0xF8..0xFF)
  kIncomplete,        // the input ends inside the sequence
  kInvalidTrailing,   // a byte inside the sequence is not a continuation byte
  kOverlong,          // the code point has a shorter encoding
  kInvalidCodePoint,  // a surrogate or a value above U+10FFFF
};

struct Rune {
  char32_t value = kReplacementChar;
  size_t width = 1;  // bytes consumed: 1..4; 1 for every invalid sequence
  Error error = Error::kNone;
};

// The code point starting at s[i]; requires i < s.size().
Rune Decode(std::string_view s, size_t i);

// Every byte of `s` belongs to a valid sequence (utf8.ValidString).
bool Valid(std::string_view s);

// Appends the UTF-8 encoding of `r`; a surrogate or a value above U+10FFFF appends U+FFFD.
void Append(std::string& out, char32_t r);

// The code points of `s`, invalid bytes as U+FFFD each.
std::u32string Runes(std::string_view s);

}  // namespace allot::utf8

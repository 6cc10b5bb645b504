// Tokens of CEL source text (github.com/google/cel-spec langdef.md, "Syntax").
//
// Numbers are kept as text (the parser folds a leading '-' into int literals, so that
// -9223372036854775808 is representable); string and bytes literals are decoded here (raw,
// triple-quoted, and the escapes \a \b \f \n \r \t \v \\ \' \" \` \? \xHH \uHHHH \UHHHHHHHH
// and octal \ooo). `//` comments and whitespace are skipped.
//
// Thread safety: a Lexer is used by one parser.
#pragma once

#include <string>
#include <string_view>

#include "cel/source.h"

namespace allot::cel {

enum class TokenKind : uint8_t {
  kEof,
  kError,  // `text` holds the message
  kIdent,
  kInt,     // text: digits (decimal or 0x...)
  kUint,    // text: digits without the u suffix
  kDouble,  // text: as written
  kString,  // value: decoded UTF-8
  kBytes,   // value: decoded bytes
  kTrue,
  kFalse,
  kNull,
  kIn,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kDot,
  kComma,
  kColon,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kBang,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  Offset offset = 0;
  std::string_view text;  // the source text of the token (message for kError)
  std::string value;      // decoded literal payload; error message for kError
};

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(source) {}
  Token Next();

 private:
  Token Make(TokenKind kind, size_t start, size_t end);
  Token Error(size_t start, std::string message);
  Token LexNumber(size_t start);
  Token LexString(size_t start, bool raw, bool bytes);
  void SkipSpaceAndComments();

  std::string_view src_;
  size_t pos_ = 0;
};

// The ANTLR-style display of a token in syntax errors: 'text', or '<EOF>'.
std::string TokenDisplay(const Token& t);

}  // namespace allot::cel

#include "cel/lexer.h"

#include "common/utf8.h"

namespace allot::cel {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsIdentStart(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

std::string TokenDisplay(const Token& t) {
  if (t.kind == TokenKind::kEof) return "'<EOF>'";
  return "'" + std::string(t.text) + "'";
}

Token Lexer::Make(TokenKind kind, size_t start, size_t end) {
  Token t;
  t.kind = kind;
  t.offset = static_cast<Offset>(start);
  t.text = src_.substr(start, end - start);
  pos_ = end;
  return t;
}

Token Lexer::Error(size_t start, std::string message) {
  Token t;
  t.kind = TokenKind::kError;
  t.offset = static_cast<Offset>(start);
  t.value = std::move(message);
  pos_ = src_.size();
  return t;
}

void Lexer::SkipSpaceAndComments() {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

Token Lexer::Next() {
  SkipSpaceAndComments();
  size_t s = pos_;
  if (s >= src_.size()) return Make(TokenKind::kEof, s, s);
  char c = src_[s];
  char n = s + 1 < src_.size() ? src_[s + 1] : '\0';
  if (IsDigit(c) || (c == '.' && IsDigit(n))) return LexNumber(s);
  if (IsIdentStart(c)) {
    // String prefixes: r, b, rb, br (any case) directly followed by a quote.
    size_t p = s;
    bool raw = false, bytes = false;
    for (int i = 0; i < 2 && p < src_.size(); ++i) {
      char x = src_[p];
      if ((x == 'r' || x == 'R') && !raw) {
        raw = true;
        ++p;
      } else if ((x == 'b' || x == 'B') && !bytes) {
        bytes = true;
        ++p;
      } else {
        break;
      }
    }
    if (p > s && p < src_.size() && (src_[p] == '\'' || src_[p] == '"')) {
      pos_ = p;
      return LexString(s, raw, bytes);
    }
    size_t e = s;
    while (e < src_.size() && IsIdentChar(src_[e])) ++e;
    std::string_view word = src_.substr(s, e - s);
    TokenKind k = TokenKind::kIdent;
    if (word == "true") k = TokenKind::kTrue;
    if (word == "false") k = TokenKind::kFalse;
    if (word == "null") k = TokenKind::kNull;
    if (word == "in") k = TokenKind::kIn;
    return Make(k, s, e);
  }
  if (c == '\'' || c == '"') return LexString(s, false, false);
  auto two = [&](char second, TokenKind k2, TokenKind k1) {
    return n == second ? Make(k2, s, s + 2) : Make(k1, s, s + 1);
  };
  switch (c) {
    case '(':
      return Make(TokenKind::kLParen, s, s + 1);
    case ')':
      return Make(TokenKind::kRParen, s, s + 1);
    case '[':
      return Make(TokenKind::kLBracket, s, s + 1);
    case ']':
      return Make(TokenKind::kRBracket, s, s + 1);
    case '{':
      return Make(TokenKind::kLBrace, s, s + 1);
    case '}':
      return Make(TokenKind::kRBrace, s, s + 1);
    case '.':
      return Make(TokenKind::kDot, s, s + 1);
    case ',':
      return Make(TokenKind::kComma, s, s + 1);
    case ':':
      return Make(TokenKind::kColon, s, s + 1);
    case '?':
      return Make(TokenKind::kQuestion, s, s + 1);
    case '+':
      return Make(TokenKind::kPlus, s, s + 1);
    case '-':
      return Make(TokenKind::kMinus, s, s + 1);
    case '*':
      return Make(TokenKind::kStar, s, s + 1);
    case '/':
      return Make(TokenKind::kSlash, s, s + 1);
    case '%':
      return Make(TokenKind::kPercent, s, s + 1);
    case '!':
      return two('=', TokenKind::kNe, TokenKind::kBang);
    case '<':
      return two('=', TokenKind::kLe, TokenKind::kLt);
    case '>':
      return two('=', TokenKind::kGe, TokenKind::kGt);
    case '=':
      if (n == '=') return Make(TokenKind::kEq, s, s + 2);
      break;
    case '&':
      if (n == '&') return Make(TokenKind::kAnd, s, s + 2);
      break;
    case '|':
      if (n == '|') return Make(TokenKind::kOr, s, s + 2);
      break;
    default:
      break;
  }
  size_t len = 1;
  while (s + len < src_.size() && (static_cast<unsigned char>(src_[s + len]) & 0xC0) == 0x80) ++len;
  return Error(
      s, "Syntax error: token recognition error at: '" + std::string(src_.substr(s, len)) + "'");
}

Token Lexer::LexNumber(size_t s) {
  size_t p = s;
  auto digits = [&] {
    while (p < src_.size() && IsDigit(src_[p])) ++p;
  };
  if (src_[p] == '0' && p + 1 < src_.size() && (src_[p + 1] == 'x' || src_[p + 1] == 'X')) {
    p += 2;
    size_t h = p;
    while (p < src_.size() && IsHex(src_[p])) ++p;
    if (p == h) return Error(s, "Syntax error: token recognition error at: '0x'");
    if (p < src_.size() && (src_[p] == 'u' || src_[p] == 'U')) {
      Token t = Make(TokenKind::kUint, s, p + 1);
      t.text = src_.substr(s, p - s);
      return t;
    }
    return Make(TokenKind::kInt, s, p);
  }
  digits();
  bool is_double = false;
  if (p + 1 < src_.size() && src_[p] == '.' && IsDigit(src_[p + 1])) {
    is_double = true;
    ++p;
    digits();
  }
  if (p < src_.size() && (src_[p] == 'e' || src_[p] == 'E')) {
    size_t q = p + 1;
    if (q < src_.size() && (src_[q] == '+' || src_[q] == '-')) ++q;
    if (q < src_.size() && IsDigit(src_[q])) {
      is_double = true;
      p = q;
      digits();
    }
  }
  if (is_double) return Make(TokenKind::kDouble, s, p);
  if (p < src_.size() && (src_[p] == 'u' || src_[p] == 'U')) {
    Token t = Make(TokenKind::kUint, s, p + 1);
    t.text = src_.substr(s, p - s);
    return t;
  }
  return Make(TokenKind::kInt, s, p);
}

Token Lexer::LexString(size_t start, bool raw, bool bytes) {
  // pos_ is at the opening quote.
  char q = src_[pos_];
  bool triple = pos_ + 2 < src_.size() && src_[pos_ + 1] == q && src_[pos_ + 2] == q;
  size_t p = pos_ + (triple ? 3 : 1);
  std::string out;
  auto unterminated = [&] {
    size_t end = src_.find('\n', start);
    if (end == std::string_view::npos) end = src_.size();
    return Error(start, "Syntax error: token recognition error at: '" +
                            std::string(src_.substr(start, end - start)) + "'");
  };
  while (true) {
    if (p >= src_.size()) return unterminated();
    char c = src_[p];
    if (triple) {
      if (c == q && p + 2 < src_.size() && src_[p + 1] == q && src_[p + 2] == q) {
        p += 3;
        break;
      }
    } else {
      if (c == q) {
        ++p;
        break;
      }
      if (c == '\n' || c == '\r') return unterminated();
    }
    if (c != '\\' || raw) {
      out.push_back(c);
      ++p;
      continue;
    }
    // Escape sequence.
    if (p + 1 >= src_.size()) return unterminated();
    char e = src_[p + 1];
    size_t esc_start = p;
    p += 2;
    auto bad = [&] {
      return Error(esc_start, "Syntax error: token recognition error at: '" +
                                  std::string(src_.substr(esc_start, p - esc_start)) + "'");
    };
    switch (e) {
      case 'a':
        out.push_back('\a');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'v':
        out.push_back('\v');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '\'':
        out.push_back('\'');
        break;
      case '"':
        out.push_back('"');
        break;
      case '`':
        out.push_back('`');
        break;
      case '?':
        out.push_back('?');
        break;
      case 'x':
      case 'X':
      case 'u':
      case 'U': {
        int n = (e == 'x' || e == 'X') ? 2 : (e == 'u' ? 4 : 8);
        if (bytes && (e == 'u' || e == 'U')) return bad();
        uint32_t cp = 0;
        for (int i = 0; i < n; ++i) {
          if (p >= src_.size() || !IsHex(src_[p])) return bad();
          cp = cp * 16 + static_cast<uint32_t>(HexValue(src_[p++]));
        }
        if (bytes) {
          out.push_back(static_cast<char>(cp));
        } else {
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return bad();
          utf8::Append(out, cp);
        }
        break;
      }
      default:
        if (e >= '0' && e <= '3') {
          uint32_t v = static_cast<uint32_t>(e - '0');
          for (int i = 0; i < 2; ++i) {
            if (p >= src_.size() || src_[p] < '0' || src_[p] > '7') return bad();
            v = v * 8 + static_cast<uint32_t>(src_[p++] - '0');
          }
          if (bytes) {
            out.push_back(static_cast<char>(v));
          } else {
            utf8::Append(out, v);
          }
          break;
        }
        return bad();
    }
  }
  Token t = Make(bytes ? TokenKind::kBytes : TokenKind::kString, start, p);
  t.value = std::move(out);
  return t;
}

}  // namespace allot::cel

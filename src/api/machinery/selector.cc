#include "api/machinery/selector.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/machinery/names.h"
#include "common/utf8.h"

namespace allot::api {
namespace {

using Op = LabelRequirement::Op;

Status BadRequest(std::string message) {
  return Status(StatusCode::kBadRequest, std::move(message));
}

// --- Go formatting ------------------------------------------------------------------------

void AppendHex(std::string& out, const char* prefix, uint32_t value, int width) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  for (int shift = (width - 1) * 4; shift >= 0; shift -= 4) out += kHex[(value >> shift) & 0xf];
}

// Length of the valid UTF-8 sequence starting at s[i] and its code point; 0 when invalid.
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* rune) {
  utf8::Rune r = utf8::Decode(s, i);
  if (r.error != utf8::Error::kNone) return 0;
  *rune = r.value;
  return r.width;
}

// Go's %q (strconv.Quote) for the characters that occur in practice: printable ASCII and
// printable non-ASCII runes verbatim, the usual escapes, \xNN for other bytes.
std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    uint32_t rune = 0;
    size_t len = DecodeUtf8(s, i, &rune);
    if (len == 0) {
      AppendHex(out, "\\x", static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    if (rune == '"' || rune == '\\') {
      out += '\\';
      out += static_cast<char>(rune);
    } else if (rune >= 0x20 && rune < 0x7f) {
      out += static_cast<char>(rune);
    } else if (rune < 0x80) {
      switch (rune) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
        default: AppendHex(out, "\\x", rune, 2); break;
      }
    } else if (rune <= 0xa0 || rune == 0xad) {
      AppendHex(out, "\\u", rune, 4);  // C1 controls, NBSP, soft hyphen: not printable in Go
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  out += '"';
  return out;
}

// Go's %#v of a []string; an empty slice prints as nil, which is what Kubernetes passes.
std::string GoStringSlice(const std::vector<std::string>& values) {
  if (values.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(values[i]);
  }
  out += "}";
  return out;
}

// field.Path rendering: a nil root path prints as "<nil>"; children join with '.'.
std::string ChildPath(std::string_view path, std::string_view name) {
  if (path.empty()) return std::string(name);
  std::string out(path);
  out += '.';
  out += name;
  return out;
}

std::string InvalidError(std::string_view path, std::string_view bad_value,
                         std::string_view detail) {
  std::string out(path);
  out += ": Invalid value: ";
  out += bad_value;
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
  return out;
}

std::string JoinErrors(const std::vector<std::string>& errs, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < errs.size(); ++i) {
    if (i > 0) out += sep;
    out += errs[i];
  }
  return out;
}

// utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated in "[a, b]".
std::string AggregateError(const std::vector<std::string>& errs) {
  std::vector<std::string> unique;
  for (const std::string& e : errs) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  if (unique.size() == 1) return unique[0];
  return "[" + JoinErrors(unique, ", ") + "]";
}

// strconv.ParseInt(s, 10, 64).
bool ParseInt64(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  uint64_t v = 0;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

std::string_view OpSymbol(Op op) {
  switch (op) {
    case Op::kIn: return " in ";
    case Op::kNotIn: return " notin ";
    case Op::kEquals: return "=";
    case Op::kDoubleEquals: return "==";
    case Op::kNotEquals: return "!=";
    case Op::kGreaterThan: return ">";
    case Op::kLessThan: return "<";
    case Op::kExists:
    case Op::kDoesNotExist:
      return "";
  }
  return "";
}

void SortByKey(std::vector<LabelRequirement>& reqs) {
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const LabelRequirement& a, const LabelRequirement& b) {
                     return a.key < b.key;
                   });
}

// --- label selector lexer and parser (labels.Lexer / labels.Parser) -----------------------

enum class Token {
  kError,
  kEndOfString,
  kClosedPar,
  kComma,
  kDoesNotExist,
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

struct ScannedItem {
  Token token;
  std::string literal;
};

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool IsSpecialSymbol(char c) {
  switch (c) {
    case '=': case '!': case '(': case ')': case ',': case '>': case '<':
      return true;
    default:
      return false;
  }
}

bool LookupToken(std::string_view s, Token* token) {
  static constexpr std::pair<std::string_view, Token> kTokens[] = {
      {")", Token::kClosedPar},     {",", Token::kComma},      {"!", Token::kDoesNotExist},
      {"==", Token::kDoubleEquals}, {"=", Token::kEquals},     {">", Token::kGreaterThan},
      {"in", Token::kIn},           {"<", Token::kLessThan},   {"!=", Token::kNotEquals},
      {"notin", Token::kNotIn},     {"(", Token::kOpenPar},
  };
  for (const auto& [text, tok] : kTokens) {
    if (text == s) {
      *token = tok;
      return true;
    }
  }
  return false;
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  ScannedItem Lex() {
    char c = SkipWhitespace(Read());
    if (c == 0) return {Token::kEndOfString, ""};
    Unread();
    return IsSpecialSymbol(c) ? ScanSpecialSymbol() : ScanIdOrKeyword();
  }

 private:
  // As Go's lexer: 0 at the end (position unchanged) or for a NUL byte (consumed).
  char Read() {
    if (pos_ >= s_.size()) return 0;
    return s_[pos_++];
  }
  void Unread() { --pos_; }

  char SkipWhitespace(char c) {
    while (IsWhitespace(c)) c = Read();
    return c;
  }

  ScannedItem ScanIdOrKeyword() {
    std::string buffer;
    while (true) {
      char c = Read();
      if (c == 0) break;
      if (IsSpecialSymbol(c) || IsWhitespace(c)) {
        Unread();
        break;
      }
      buffer += c;
    }
    Token token;
    if (LookupToken(buffer, &token)) return {token, buffer};
    return {Token::kIdentifier, buffer};
  }

  // Longest run of special symbols that still forms a known operator ("!=", "==", ...).
  ScannedItem ScanSpecialSymbol() {
    std::string buffer;
    ScannedItem last{Token::kError, ""};
    while (true) {
      char c = Read();
      if (c == 0) break;
      if (!IsSpecialSymbol(c)) {
        Unread();
        break;
      }
      buffer += c;
      Token token;
      if (LookupToken(buffer, &token)) {
        last = {token, buffer};
      } else if (last.token != Token::kError) {
        Unread();
        break;
      }
    }
    if (last.token == Token::kError) {
      return {Token::kError, "error expected: keyword found '" + buffer + "'"};
    }
    return last;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view text) {
    Lexer lexer(text);
    while (true) {
      items_.push_back(lexer.Lex());
      if (items_.back().token == Token::kEndOfString) break;
    }
  }

  Result<std::vector<LabelRequirement>> Parse() {
    std::vector<LabelRequirement> requirements;
    while (true) {
      const ScannedItem& next = Lookahead(kValues);
      switch (Contextual(next.token, kValues)) {
        case Token::kIdentifier:
        case Token::kDoesNotExist: {
          Result<LabelRequirement> r = ParseRequirement();
          if (!r.ok()) {
            return BadRequest("unable to parse requirement: " + r.status().message());
          }
          requirements.push_back(std::move(r).value());
          const ScannedItem& after = Consume();
          switch (Contextual(after.token, kValues)) {
            case Token::kEndOfString:
              return requirements;
            case Token::kComma: {
              const ScannedItem& following = Lookahead(kValues);
              Token t = Contextual(following.token, kValues);
              if (t != Token::kIdentifier && t != Token::kDoesNotExist) {
                return BadRequest("found '" + following.literal +
                                  "', expected: identifier after ','");
              }
              break;
            }
            default:
              return BadRequest("found '" + after.literal +
                                "', expected: ',' or 'end of string'");
          }
          break;
        }
        case Token::kEndOfString:
          return requirements;
        default:
          return BadRequest("found '" + next.literal +
                            "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  // In a values context the keywords "in" and "notin" are plain identifiers.
  enum Context { kKeyAndOperator, kValues };

  static Token Contextual(Token t, Context context) {
    if (context == kValues && (t == Token::kIn || t == Token::kNotIn)) return Token::kIdentifier;
    return t;
  }

  const ScannedItem& Lookahead(Context) const { return items_[std::min(pos_, items_.size() - 1)]; }
  const ScannedItem& Consume() {
    const ScannedItem& item = items_[std::min(pos_, items_.size() - 1)];
    ++pos_;
    return item;
  }

  Result<LabelRequirement> ParseRequirement() {
    // Key, and the operator when it is implied (exists / does not exist).
    std::optional<Op> op;
    const ScannedItem* item = &Consume();
    if (item->token == Token::kDoesNotExist) {
      op = Op::kDoesNotExist;
      item = &Consume();
    }
    if (Contextual(item->token, kValues) != Token::kIdentifier) {
      return BadRequest("found '" + item->literal + "', expected: identifier");
    }
    std::string key = item->literal;
    std::vector<std::string> key_errors = QualifiedNameErrors(key);
    if (!key_errors.empty()) {
      return BadRequest(InvalidError("<nil>", GoQuote(key), JoinErrors(key_errors, "; ")));
    }
    const Token after_key = Contextual(Lookahead(kValues).token, kValues);
    if ((after_key == Token::kEndOfString || after_key == Token::kComma) && !op) {
      op = Op::kExists;
    }
    if (op) return LabelRequirement::Make(std::move(key), *op, {});

    const ScannedItem& op_item = Consume();
    switch (Contextual(op_item.token, kKeyAndOperator)) {
      case Token::kIn: op = Op::kIn; break;
      case Token::kEquals: op = Op::kEquals; break;
      case Token::kDoubleEquals: op = Op::kDoubleEquals; break;
      case Token::kGreaterThan: op = Op::kGreaterThan; break;
      case Token::kLessThan: op = Op::kLessThan; break;
      case Token::kNotIn: op = Op::kNotIn; break;
      case Token::kNotEquals: op = Op::kNotEquals; break;
      default:
        return BadRequest("found '" + op_item.literal +
                          "', expected: in, notin, =, ==, !=, gt, lt");
    }
    std::vector<std::string> values;
    Status st = (*op == Op::kIn || *op == Op::kNotIn) ? ParseValues(&values)
                                                     : ParseExactValue(&values);
    if (!st.ok()) return st;
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return LabelRequirement::Make(std::move(key), *op, std::move(values));
  }

  // "(" values ")"
  Status ParseValues(std::vector<std::string>* values) {
    const ScannedItem& open = Consume();
    if (Contextual(open.token, kValues) != Token::kOpenPar) {
      return BadRequest("found '" + open.literal + "' expected: '('");
    }
    const ScannedItem& first = Lookahead(kValues);
    switch (Contextual(first.token, kValues)) {
      case Token::kIdentifier:
      case Token::kComma: {
        std::string first_literal = first.literal;
        ALLOT_RETURN_IF_ERROR(ParseIdentifiersList(values));
        if (Contextual(Consume().token, kValues) != Token::kClosedPar) {
          return BadRequest("found '" + first_literal + "', expected: ')'");
        }
        return Status::Ok();
      }
      case Token::kClosedPar:
        Consume();
        values->push_back("");
        return Status::Ok();
      default:
        return BadRequest("found '" + first.literal + "', expected: ',', ')' or identifier");
    }
  }

  // A possibly empty, comma separated list of possibly empty identifiers, up to ")".
  Status ParseIdentifiersList(std::vector<std::string>* values) {
    while (true) {
      const ScannedItem& item = Consume();
      switch (Contextual(item.token, kValues)) {
        case Token::kIdentifier: {
          values->push_back(item.literal);
          const ScannedItem& next = Lookahead(kValues);
          switch (Contextual(next.token, kValues)) {
            case Token::kComma:
              continue;
            case Token::kClosedPar:
              return Status::Ok();
            default:
              return BadRequest("found '" + next.literal + "', expected: ',' or ')'");
          }
        }
        case Token::kComma: {
          if (values->empty()) values->push_back("");  // "(,"
          Token next = Contextual(Lookahead(kValues).token, kValues);
          if (next == Token::kClosedPar) {
            values->push_back("");  // ",)"
            return Status::Ok();
          }
          if (next == Token::kComma) {
            Consume();
            values->push_back("");  // ",,"
          }
          break;
        }
        default:
          return BadRequest("found '" + item.literal + "', expected: ',', or identifier");
      }
    }
  }

  Status ParseExactValue(std::vector<std::string>* values) {
    Token next = Contextual(Lookahead(kValues).token, kValues);
    if (next == Token::kEndOfString || next == Token::kComma) {
      values->push_back("");
      return Status::Ok();
    }
    const ScannedItem& item = Consume();
    if (Contextual(item.token, kValues) == Token::kIdentifier) {
      values->push_back(item.literal);
      return Status::Ok();
    }
    return BadRequest("found '" + item.literal + "', expected: identifier");
  }

  std::vector<ScannedItem> items_;
  size_t pos_ = 0;
};

// --- field selector helpers -----------------------------------------------------------------

// fields.UnescapeValue.
Result<std::string> UnescapeFieldValue(std::string_view s) {
  if (s.find_first_of("\\,=") == std::string_view::npos) return std::string(s);
  std::string out;
  out.reserve(s.size());
  bool in_slash = false;
  for (size_t i = 0; i < s.size();) {
    uint32_t rune = 0;
    size_t len = DecodeUtf8(s, i, &rune);
    // Go decodes an invalid byte as U+FFFD.
    std::string_view text = len == 0 ? std::string_view("\xef\xbf\xbd") : s.substr(i, len);
    if (len == 0) {
      rune = 0xfffd;
      len = 1;
    }
    i += len;
    if (in_slash) {
      if (rune == '\\' || rune == ',' || rune == '=') {
        out += static_cast<char>(rune);
      } else {
        return BadRequest("invalid field selector: invalid escape sequence: \\" +
                          std::string(text));
      }
      in_slash = false;
      continue;
    }
    if (rune == '\\') {
      in_slash = true;
    } else if (rune == ',' || rune == '=') {
      return BadRequest("invalid field selector: unescaped character in value: " +
                        std::to_string(rune));
    } else {
      out.append(text);
    }
  }
  if (in_slash) return BadRequest("invalid field selector: invalid escape sequence: \\");
  return out;
}

}  // namespace

// --- LabelRequirement ---------------------------------------------------------------------

Result<LabelRequirement> LabelRequirement::Make(std::string key, Op op,
                                                std::vector<std::string> values,
                                                std::string_view path) {
  std::vector<std::string> errs;
  std::vector<std::string> key_errors = QualifiedNameErrors(key);
  if (!key_errors.empty()) {
    errs.push_back(
        InvalidError(ChildPath(path, "key"), GoQuote(key), JoinErrors(key_errors, "; ")));
  }
  const std::string values_path = ChildPath(path, "values");
  auto index_path = [&values_path](size_t i) {
    return values_path + "[" + std::to_string(i) + "]";
  };
  switch (op) {
    case Op::kIn:
    case Op::kNotIn:
      if (values.empty()) {
        errs.push_back(InvalidError(values_path, GoStringSlice(values),
                                    "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case Op::kEquals:
    case Op::kDoubleEquals:
    case Op::kNotEquals:
      if (values.size() != 1) {
        errs.push_back(InvalidError(values_path, GoStringSlice(values),
                                    "exact-match compatibility requires one single value"));
      }
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      if (!values.empty()) {
        errs.push_back(InvalidError(values_path, GoStringSlice(values),
                                    "values set must be empty for exists and does not exist"));
      }
      break;
    case Op::kGreaterThan:
    case Op::kLessThan:
      if (values.size() != 1) {
        errs.push_back(InvalidError(values_path, GoStringSlice(values),
                                    "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < values.size(); ++i) {
        int64_t unused;
        if (!ParseInt64(values[i], &unused)) {
          errs.push_back(InvalidError(index_path(i), GoQuote(values[i]),
                                      "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<std::string> value_errors = LabelValueErrors(values[i]);
    if (!value_errors.empty()) {
      errs.push_back(InvalidError(index_path(i) + "[" + key + "]", GoQuote(values[i]),
                                  JoinErrors(value_errors, "; ")));
    }
  }
  if (!errs.empty()) return BadRequest(AggregateError(errs));
  LabelRequirement r;
  r.key = std::move(key);
  r.op = op;
  r.values = std::move(values);
  return r;
}

bool LabelRequirement::Matches(const StringMap& labels) const {
  auto it = labels.find(key);
  const bool has = it != labels.end();
  auto has_value = [&](const std::string& v) {
    return std::find(values.begin(), values.end(), v) != values.end();
  };
  switch (op) {
    case Op::kIn:
    case Op::kEquals:
    case Op::kDoubleEquals:
      return has && has_value(it->second);
    case Op::kNotIn:
    case Op::kNotEquals:
      return !has || !has_value(it->second);
    case Op::kExists:
      return has;
    case Op::kDoesNotExist:
      return !has;
    case Op::kGreaterThan:
    case Op::kLessThan: {
      if (!has || values.size() != 1) return false;
      int64_t label_value;
      int64_t bound;
      if (!ParseInt64(it->second, &label_value) || !ParseInt64(values[0], &bound)) return false;
      return op == Op::kGreaterThan ? label_value > bound : label_value < bound;
    }
  }
  return false;
}

std::string LabelRequirement::ToString() const {
  std::string out;
  if (op == Op::kDoesNotExist) out += '!';
  out += key;
  if (op == Op::kExists || op == Op::kDoesNotExist) return out;
  out += OpSymbol(op);
  const bool set = op == Op::kIn || op == Op::kNotIn;
  if (set) out += '(';
  if (values.size() == 1) {
    out += values[0];
  } else {
    std::vector<std::string> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0) out += ',';
      out += sorted[i];
    }
  }
  if (set) out += ')';
  return out;
}

// --- LabelSelectorExpr ----------------------------------------------------------------------

LabelSelectorExpr LabelSelectorExpr::Nothing() {
  LabelSelectorExpr s;
  s.nothing_ = true;
  return s;
}

Result<LabelSelectorExpr> LabelSelectorExpr::Parse(std::string_view text) {
  Parser parser(text);
  ALLOT_ASSIGN_OR_RETURN(std::vector<LabelRequirement> reqs, parser.Parse());
  SortByKey(reqs);
  LabelSelectorExpr s;
  s.requirements_ = std::move(reqs);
  return s;
}

Result<LabelSelectorExpr> LabelSelectorExpr::FromLabelSelector(const LabelSelector& selector) {
  LabelSelectorExpr s;
  for (const auto& [key, value] : selector.matchLabels) {
    ALLOT_ASSIGN_OR_RETURN(LabelRequirement r, LabelRequirement::Make(key, Op::kEquals, {value}));
    s.requirements_.push_back(std::move(r));
  }
  for (const LabelSelectorRequirement& expr : selector.matchExpressions) {
    Op op;
    if (expr.operator_ == "In") {
      op = Op::kIn;
    } else if (expr.operator_ == "NotIn") {
      op = Op::kNotIn;
    } else if (expr.operator_ == "Exists") {
      op = Op::kExists;
    } else if (expr.operator_ == "DoesNotExist") {
      op = Op::kDoesNotExist;
    } else {
      return BadRequest(GoQuote(expr.operator_) + " is not a valid label selector operator");
    }
    ALLOT_ASSIGN_OR_RETURN(LabelRequirement r,
                           LabelRequirement::Make(expr.key, op, expr.values));
    s.requirements_.push_back(std::move(r));
  }
  SortByKey(s.requirements_);
  return s;
}

LabelSelectorExpr LabelSelectorExpr::FromSet(const StringMap& labels) {
  LabelSelectorExpr s;
  for (const auto& [key, value] : labels) {
    s.requirements_.push_back(LabelRequirement{key, Op::kEquals, {value}});
  }
  return s;
}

bool LabelSelectorExpr::Matches(const StringMap& labels) const {
  if (nothing_) return false;
  for (const LabelRequirement& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

std::string LabelSelectorExpr::ToString() const {
  std::string out;
  for (const LabelRequirement& r : requirements_) {
    if (!out.empty()) out += ',';
    out += r.ToString();
  }
  return out;
}

std::optional<std::string> LabelSelectorExpr::ExactMatch(std::string_view key) const {
  for (const LabelRequirement& r : requirements_) {
    if (r.key != key) continue;
    if ((r.op == Op::kEquals || r.op == Op::kDoubleEquals || r.op == Op::kIn) &&
        r.values.size() == 1) {
      return r.values[0];
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// --- FieldSelectorExpr ----------------------------------------------------------------------

std::string EscapeFieldSelectorValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

Result<FieldSelectorExpr> FieldSelectorExpr::Parse(std::string_view text) {
  // Split on commas not preceded by a backslash (the backslash stays in the term).
  std::vector<std::string_view> terms;
  if (!text.empty()) {
    size_t start = 0;
    bool in_slash = false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (in_slash) {
        in_slash = false;
      } else if (text[i] == '\\') {
        in_slash = true;
      } else if (text[i] == ',') {
        terms.push_back(text.substr(start, i - start));
        start = i + 1;
      }
    }
    terms.push_back(text.substr(start));
  }
  std::sort(terms.begin(), terms.end());

  FieldSelectorExpr s;
  for (std::string_view term : terms) {
    if (term.empty()) continue;
    // The first "!=", "==" or "=" splits the term.
    size_t at = std::string_view::npos;
    std::string_view op;
    for (size_t i = 0; i < term.size() && at == std::string_view::npos; ++i) {
      for (std::string_view candidate : {"!=", "==", "="}) {
        if (term.substr(i).starts_with(candidate)) {
          at = i;
          op = candidate;
          break;
        }
      }
    }
    if (at == std::string_view::npos) {
      return BadRequest("invalid selector: '" + std::string(text) + "'; can't understand '" +
                        std::string(term) + "'");
    }
    ALLOT_ASSIGN_OR_RETURN(std::string value, UnescapeFieldValue(term.substr(at + op.size())));
    std::string field(term.substr(0, at));
    if (field.empty() && value.empty()) continue;  // as Kubernetes' Transform: matches all
    s.requirements_.push_back(FieldRequirement{
        std::move(field), op == "!=" ? FieldRequirement::Op::kNotEquals
                                     : FieldRequirement::Op::kEquals,
        std::move(value)});
  }
  return s;
}

FieldSelectorExpr FieldSelectorExpr::OneTermEqual(std::string field, std::string value) {
  FieldSelectorExpr s;
  s.requirements_.push_back(
      FieldRequirement{std::move(field), FieldRequirement::Op::kEquals, std::move(value)});
  return s;
}

bool FieldSelectorExpr::Matches(const FieldLookup& lookup) const {
  for (const FieldRequirement& r : requirements_) {
    std::optional<std::string> actual = lookup(r.field);
    if (!actual) return false;
    const bool equal = *actual == r.value;
    if (equal != (r.op == FieldRequirement::Op::kEquals)) return false;
  }
  return true;
}

std::string FieldSelectorExpr::ToString() const {
  std::string out;
  for (const FieldRequirement& r : requirements_) {
    if (!out.empty()) out += ',';
    out += r.field;
    out += r.op == FieldRequirement::Op::kEquals ? "=" : "!=";
    out += EscapeFieldSelectorValue(r.value);
  }
  return out;
}

std::optional<std::string> FieldSelectorExpr::ExactMatch(std::string_view field) const {
  for (const FieldRequirement& r : requirements_) {
    if (r.field == field && r.op == FieldRequirement::Op::kEquals) return r.value;
  }
  return std::nullopt;
}

// --- node selectors -------------------------------------------------------------------------

bool MatchesNodeSelectorTerm(const NodeSelectorTerm& term, const StringMap& node_labels,
                             std::string_view node_name) {
  if (term.matchExpressions.empty() && term.matchFields.empty()) return false;
  // Any invalid requirement makes the whole term match nothing, so validate everything first.
  std::vector<LabelRequirement> label_reqs;
  label_reqs.reserve(term.matchExpressions.size());
  for (const NodeSelectorRequirement& expr : term.matchExpressions) {
    Op op;
    if (expr.operator_ == "In") {
      op = Op::kIn;
    } else if (expr.operator_ == "NotIn") {
      op = Op::kNotIn;
    } else if (expr.operator_ == "Exists") {
      op = Op::kExists;
    } else if (expr.operator_ == "DoesNotExist") {
      op = Op::kDoesNotExist;
    } else if (expr.operator_ == "Gt") {
      op = Op::kGreaterThan;
    } else if (expr.operator_ == "Lt") {
      op = Op::kLessThan;
    } else {
      return false;
    }
    Result<LabelRequirement> r = LabelRequirement::Make(expr.key, op, expr.values);
    if (!r.ok()) return false;
    label_reqs.push_back(std::move(r).value());
  }
  for (const NodeSelectorRequirement& expr : term.matchFields) {
    if ((expr.operator_ != "In" && expr.operator_ != "NotIn") || expr.values.size() != 1) {
      return false;
    }
  }
  for (const LabelRequirement& r : label_reqs) {
    if (!r.Matches(node_labels)) return false;
  }
  if (!node_name.empty()) {
    for (const NodeSelectorRequirement& expr : term.matchFields) {
      std::string_view actual = expr.key == "metadata.name" ? node_name : std::string_view();
      const bool equal = actual == expr.values[0];
      if (equal != (expr.operator_ == "In")) return false;
    }
  }
  return true;
}

bool MatchesNodeSelector(const NodeSelector& selector, const StringMap& node_labels,
                         std::string_view node_name) {
  for (const NodeSelectorTerm& term : selector.nodeSelectorTerms) {
    if (MatchesNodeSelectorTerm(term, node_labels, node_name)) return true;
  }
  return false;
}

}  // namespace allot::api

#include "cel/parser.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <set>

#include "cel/lexer.h"

namespace allot::cel {

namespace {

constexpr std::string_view kPrimaryExpected =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}";

bool IsReserved(std::string_view w) {
  static const std::set<std::string_view> kReserved = {
      "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
      "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  return kReserved.count(w) > 0;
}

class Parser {
 public:
  Parser(std::string_view source, ErrorList& errors) : src_(source), errors_(errors) {
    Lexer lexer(source);
    while (true) {
      tokens_.push_back(lexer.Next());
      TokenKind k = tokens_.back().kind;
      if (k == TokenKind::kEof || k == TokenKind::kError) break;
    }
  }

  ExprPtr ParseAll() {
    ExprPtr e = ParseExpr();
    if (!e) return nullptr;
    if (Peek().kind != TokenKind::kEof) return Fail(Peek(), "<EOF>");
    return e;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Take() {
    const Token& t = Peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  bool Accept(TokenKind k) {
    if (Peek().kind != k) return false;
    Take();
    return true;
  }

  ExprPtr Error(Offset offset, std::string message) {
    if (!failed_) errors_.Add(offset, std::move(message));
    failed_ = true;
    return nullptr;
  }
  // "mismatched input 'x' expecting <expected>", or the lexer's own message.
  ExprPtr Fail(const Token& t, std::string_view expected) {
    if (t.kind == TokenKind::kError) return Error(t.offset, t.value);
    return Error(t.offset, "Syntax error: mismatched input " + TokenDisplay(t) + " expecting " +
                               std::string(expected));
  }
  bool Expect(TokenKind k, std::string_view display) {
    if (Accept(k)) return true;
    Fail(Peek(), display);
    return false;
  }

  ExprPtr NewExpr(ExprKind kind, Offset offset) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->offset = offset;
    return e;
  }
  // Sets the height from the children; fails beyond kMaxAstHeight.
  ExprPtr Finish(ExprPtr e) {
    int32_t h = 0;
    for (const ExprPtr& a : e->args) h = std::max(h, a->height);
    e->height = h + 1;
    if (e->height > kMaxAstHeight) return Error(e->offset, "max recursion depth exceeded");
    return e;
  }
  ExprPtr Call(std::string name, Offset offset, std::vector<ExprPtr> args, bool target = false) {
    ExprPtr e = NewExpr(ExprKind::kCall, offset);
    e->name = std::move(name);
    e->args = std::move(args);
    e->has_target = target;
    if (e->name == "_&&_") e->special = SpecialCall::kAnd;
    if (e->name == "_||_") e->special = SpecialCall::kOr;
    if (e->name == "_?_:_") e->special = SpecialCall::kTernary;
    if (e->name == "_[_]") e->special = SpecialCall::kIndex;
    if (e->name == "_[?_]") e->special = SpecialCall::kOptIndex;
    return Finish(std::move(e));
  }
  ExprPtr Binary(std::string name, Offset offset, ExprPtr l, ExprPtr r) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(l));
    args.push_back(std::move(r));
    return Call(std::move(name), offset, std::move(args));
  }

  ExprPtr ParseExpr() {
    if (++depth_ > kMaxRecursionDepth) {
      return Error(Peek().offset,
                   "expression recursion limit exceeded: " + std::to_string(kMaxRecursionDepth));
    }
    ExprPtr e = ParseTernary();
    --depth_;
    return e;
  }

  ExprPtr ParseTernary() {
    ExprPtr cond = ParseLogical(TokenKind::kOr);
    if (!cond) return nullptr;
    if (Peek().kind != TokenKind::kQuestion) return cond;
    Offset off = Take().offset;
    ExprPtr then = ParseLogical(TokenKind::kOr);
    if (!then) return nullptr;
    if (!Expect(TokenKind::kColon, "':'")) return nullptr;
    ExprPtr otherwise = ParseExpr();
    if (!otherwise) return nullptr;
    std::vector<ExprPtr> args;
    args.push_back(std::move(cond));
    args.push_back(std::move(then));
    args.push_back(std::move(otherwise));
    return Call("_?_:_", off, std::move(args));
  }

  // Or (op = kOr) over And terms, or And (op = kAnd) over relations; balanced like cel-go.
  ExprPtr ParseLogical(TokenKind op) {
    auto term = [&]() -> ExprPtr {
      return op == TokenKind::kOr ? ParseLogical(TokenKind::kAnd) : ParseRelation();
    };
    std::vector<ExprPtr> terms;
    std::vector<Offset> ops;
    ExprPtr first = term();
    if (!first) return nullptr;
    terms.push_back(std::move(first));
    while (Peek().kind == op) {
      ops.push_back(Take().offset);
      ExprPtr next = term();
      if (!next) return nullptr;
      terms.push_back(std::move(next));
    }
    if (ops.empty()) return std::move(terms[0]);
    return Balance(op == TokenKind::kOr ? "_||_" : "_&&_", terms, ops, 0, ops.size() - 1);
  }

  ExprPtr Balance(const std::string& fn, std::vector<ExprPtr>& terms,
                  const std::vector<Offset>& ops, size_t lo, size_t hi) {
    size_t mid = (lo + hi + 1) / 2;
    ExprPtr left = mid == lo ? std::move(terms[mid]) : Balance(fn, terms, ops, lo, mid - 1);
    if (!left) return nullptr;
    ExprPtr right = mid == hi ? std::move(terms[mid + 1]) : Balance(fn, terms, ops, mid + 1, hi);
    if (!right) return nullptr;
    return Binary(fn, ops[mid], std::move(left), std::move(right));
  }

  ExprPtr ParseRelation() {
    ExprPtr left = ParseAddition();
    while (left) {
      const char* fn = nullptr;
      switch (Peek().kind) {
        case TokenKind::kLt:
          fn = "_<_";
          break;
        case TokenKind::kLe:
          fn = "_<=_";
          break;
        case TokenKind::kGt:
          fn = "_>_";
          break;
        case TokenKind::kGe:
          fn = "_>=_";
          break;
        case TokenKind::kEq:
          fn = "_==_";
          break;
        case TokenKind::kNe:
          fn = "_!=_";
          break;
        case TokenKind::kIn:
          fn = "@in";
          break;
        default:
          return left;
      }
      Offset off = Take().offset;
      ExprPtr right = ParseAddition();
      if (!right) return nullptr;
      left = Binary(fn, off, std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr ParseAddition() {
    ExprPtr left = ParseMultiplication();
    while (left && (Peek().kind == TokenKind::kPlus || Peek().kind == TokenKind::kMinus)) {
      const Token& t = Take();
      const char* fn = t.kind == TokenKind::kPlus ? "_+_" : "_-_";
      ExprPtr right = ParseMultiplication();
      if (!right) return nullptr;
      left = Binary(fn, t.offset, std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr ParseMultiplication() {
    ExprPtr left = ParseUnary();
    while (left) {
      const char* fn = nullptr;
      switch (Peek().kind) {
        case TokenKind::kStar:
          fn = "_*_";
          break;
        case TokenKind::kSlash:
          fn = "_/_";
          break;
        case TokenKind::kPercent:
          fn = "_%_";
          break;
        default:
          return left;
      }
      Offset off = Take().offset;
      ExprPtr right = ParseUnary();
      if (!right) return nullptr;
      left = Binary(fn, off, std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr ParseUnary() {
    TokenKind k = Peek().kind;
    if (k != TokenKind::kBang && k != TokenKind::kMinus) return ParseMember(false);
    Offset off = Peek().offset;
    int count = 0;
    while (Peek().kind == k) {
      Take();
      ++count;
    }
    bool negate_literal = false;
    if (k == TokenKind::kMinus &&
        (Peek().kind == TokenKind::kInt || Peek().kind == TokenKind::kDouble)) {
      // The last '-' is the literal's sign (cel-go's literal rule: MINUS? NUM_INT).
      negate_literal = true;
      --count;
    }
    ExprPtr member = ParseMember(negate_literal);
    if (!member) return nullptr;
    if (count % 2 == 0) return member;  // cel-go drops an even number of '!' or '-'
    std::vector<ExprPtr> args;
    args.push_back(std::move(member));
    return Call(k == TokenKind::kBang ? "!_" : "-_", off, std::move(args));
  }

  ExprPtr ParseMember(bool negate_literal) {
    ExprPtr e = ParsePrimary(negate_literal);
    while (e) {
      if (Peek().kind == TokenKind::kDot) {
        Offset dot = Take().offset;
        bool optional = Accept(TokenKind::kQuestion);
        const Token& id = Peek();
        if (id.kind != TokenKind::kIdent) return Fail(id, "IDENTIFIER");
        Take();
        if (!optional && Peek().kind == TokenKind::kLParen) {
          Offset open = Take().offset;
          std::vector<ExprPtr> args;
          if (!ParseArgs(args)) return nullptr;
          e = MemberCallOrMacro(std::move(e), std::string(id.text), open, std::move(args));
          continue;
        }
        ExprPtr sel = NewExpr(ExprKind::kSelect, dot);
        sel->name = std::string(id.text);
        sel->optional = optional;
        sel->args.push_back(std::move(e));
        e = Finish(std::move(sel));
      } else if (Peek().kind == TokenKind::kLBracket) {
        Offset open = Take().offset;
        bool optional = Accept(TokenKind::kQuestion);
        ExprPtr index = ParseExpr();
        if (!index) return nullptr;
        if (!Expect(TokenKind::kRBracket, "']'")) return nullptr;
        e = Binary(optional ? "_[?_]" : "_[_]", open, std::move(e), std::move(index));
      } else {
        break;
      }
    }
    return e;
  }

  // After '(': arguments up to ')'.
  bool ParseArgs(std::vector<ExprPtr>& args) {
    if (Accept(TokenKind::kRParen)) return true;
    while (true) {
      ExprPtr a = ParseExpr();
      if (!a) return false;
      args.push_back(std::move(a));
      if (Accept(TokenKind::kComma)) continue;
      return Expect(TokenKind::kRParen, "')'");
    }
  }

  ExprPtr ParsePrimary(bool negate_literal) {
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kInt:
      case TokenKind::kUint:
      case TokenKind::kDouble:
        Take();
        return ParseNumber(t, negate_literal);
      case TokenKind::kString:
      case TokenKind::kBytes: {
        Take();
        ExprPtr e = NewExpr(ExprKind::kConst, t.offset);
        e->text = t.value;
        StringRef ref = StringRef::View(e->text);
        e->constant = t.kind == TokenKind::kString ? Value::String(ref) : Value::Bytes(ref);
        return e;
      }
      case TokenKind::kTrue:
      case TokenKind::kFalse: {
        Take();
        ExprPtr e = NewExpr(ExprKind::kConst, t.offset);
        e->constant = Value::Bool(t.kind == TokenKind::kTrue);
        return e;
      }
      case TokenKind::kNull:
        Take();
        return NewExpr(ExprKind::kConst, t.offset);
      case TokenKind::kLParen: {
        Take();
        ExprPtr e = ParseExpr();
        if (!e || !Expect(TokenKind::kRParen, "')'")) return nullptr;
        return e;
      }
      case TokenKind::kLBracket:
        Take();
        return ParseList(t.offset);
      case TokenKind::kLBrace:
        Take();
        return ParseMap(t.offset);
      case TokenKind::kDot:
        if (Peek(1).kind != TokenKind::kIdent) {
          Take();
          return Fail(Peek(), "IDENTIFIER");
        }
        Take();
        return ParseIdentOrCall();
      case TokenKind::kIdent:
        return ParseIdentOrCall();
      default:
        return Fail(t, kPrimaryExpected);
    }
  }

  ExprPtr ParseIdentOrCall() {
    const Token& id = Take();
    std::string name(id.text);
    if (IsReserved(name)) return Error(id.offset, "reserved identifier: " + name);
    if (Peek().kind != TokenKind::kLParen) {
      ExprPtr e = NewExpr(ExprKind::kIdent, id.offset);
      e->name = std::move(name);
      return e;
    }
    Offset open = Take().offset;
    std::vector<ExprPtr> args;
    if (!ParseArgs(args)) return nullptr;
    if (name == "has" && args.size() == 1) {
      ExprPtr arg = std::move(args[0]);
      if (arg->kind != ExprKind::kSelect || arg->optional) {
        return Error(arg->offset, "invalid argument to has() macro");
      }
      arg->test_only = true;
      return arg;
    }
    return Call(std::move(name), open, std::move(args));
  }

  ExprPtr MemberCallOrMacro(ExprPtr target, std::string name, Offset open,
                            std::vector<ExprPtr> args) {
    if (target->kind == ExprKind::kIdent && target->name == "cel" && name == "bind" &&
        args.size() == 3) {
      if (args[0]->kind != ExprKind::kIdent) {
        return Error(args[0]->offset, "cel.bind() variable names must be simple identifiers");
      }
      ExprPtr e = NewExpr(ExprKind::kBind, open);
      e->name = args[0]->name;
      e->args.push_back(std::move(args[1]));
      e->args.push_back(std::move(args[2]));
      return Finish(std::move(e));
    }
    std::optional<MacroKind> macro;
    if (args.size() == 2) {
      if (name == "all") macro = MacroKind::kAll;
      if (name == "exists") macro = MacroKind::kExists;
      if (name == "exists_one") macro = MacroKind::kExistsOne;
      if (name == "map") macro = MacroKind::kMap;
      if (name == "filter") macro = MacroKind::kFilter;
    } else if (args.size() == 3 && name == "map") {
      macro = MacroKind::kMapFilter;
    }
    if (!macro) {
      args.insert(args.begin(), std::move(target));
      return Call(std::move(name), open, std::move(args), /*target=*/true);
    }
    if (args[0]->kind != ExprKind::kIdent) {
      return Error(args[0]->offset, "argument must be a simple name");
    }
    ExprPtr e = NewExpr(ExprKind::kComprehension, open);
    e->name = args[0]->name;
    e->macro = *macro;
    e->args.push_back(std::move(target));
    for (size_t i = 1; i < args.size(); ++i) e->args.push_back(std::move(args[i]));
    return Finish(std::move(e));
  }

  ExprPtr ParseList(Offset open) {
    ExprPtr e = NewExpr(ExprKind::kList, open);
    while (Peek().kind != TokenKind::kRBracket) {
      bool optional = Accept(TokenKind::kQuestion);
      ExprPtr item = ParseExpr();
      if (!item) return nullptr;
      e->args.push_back(std::move(item));
      e->optional_entries.push_back(optional);
      if (!Accept(TokenKind::kComma)) break;
    }
    if (!Expect(TokenKind::kRBracket, "']'")) return nullptr;
    return Finish(std::move(e));
  }

  ExprPtr ParseMap(Offset open) {
    ExprPtr e = NewExpr(ExprKind::kMap, open);
    while (Peek().kind != TokenKind::kRBrace) {
      bool optional = Accept(TokenKind::kQuestion);
      ExprPtr key = ParseExpr();
      if (!key) return nullptr;
      if (!Expect(TokenKind::kColon, "':'")) return nullptr;
      ExprPtr value = ParseExpr();
      if (!value) return nullptr;
      e->args.push_back(std::move(key));
      e->args.push_back(std::move(value));
      e->optional_entries.push_back(optional);
      if (!Accept(TokenKind::kComma)) break;
    }
    if (!Expect(TokenKind::kRBrace, "'}'")) return nullptr;
    return Finish(std::move(e));
  }

  ExprPtr ParseNumber(const Token& t, bool negate) {
    ExprPtr e = NewExpr(ExprKind::kConst, t.offset);
    std::string_view text = t.text;
    if (t.kind == TokenKind::kDouble) {
      std::string s(text);
      double d = std::strtod(s.c_str(), nullptr);
      e->constant = Value::Double(negate ? -d : d);
      return e;
    }
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
      base = 16;
      text.remove_prefix(2);
    }
    uint64_t u = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), u, base);
    bool ok = ec == std::errc() && ptr == text.data() + text.size();
    if (t.kind == TokenKind::kUint) {
      if (!ok) return Error(t.offset, "invalid uint literal");
      e->constant = Value::Uint(u);
      return e;
    }
    constexpr uint64_t kMaxPos = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (!ok || u > kMaxPos + (negate ? 1 : 0)) return Error(t.offset, "invalid int literal");
    int64_t i = negate ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
    e->constant = Value::Int(i);
    return e;
  }

  std::string_view src_;
  ErrorList& errors_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool failed_ = false;
};

}  // namespace

ExprPtr Parse(std::string_view source, ErrorList& errors) {
  Parser parser(source, errors);
  ExprPtr e = parser.ParseAll();
  if (!e && errors.empty()) errors.Add(0, "Syntax error: invalid expression");
  return e;
}

}  // namespace allot::cel

#include "cel/regex.h"

#include <algorithm>

namespace allot::cel {

namespace {

constexpr int kMaxRepeat = 1000;
constexpr size_t kMaxProgram = 20000;
constexpr int kMaxNesting = 1000;
constexpr uint32_t kMaxRune = 0x10FFFF;

enum class Assert : uint8_t { kBeginLine, kEndLine, kBeginText, kEndText, kWord, kNotWord };

// Decodes one UTF-8 code point at `i`; invalid bytes decode as U+FFFD of length 1.
uint32_t DecodeRune(std::string_view s, size_t i, size_t* len) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) {
    *len = 1;
    return c < 0x80 ? c : 0xFFFD;
  }
  uint32_t r = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) {
      *len = 1;
      return 0xFFFD;
    }
    r = (r << 6) | (cc & 0x3F);
  }
  *len = n;
  return r;
}

bool IsWordRune(uint32_t r) {
  return (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == '_';
}

uint32_t FoldAscii(uint32_t r) { return (r >= 'A' && r <= 'Z') ? r + 32 : r; }

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

// --- syntax tree ---------------------------------------------------------------------------

struct Node {
  enum class Kind : uint8_t {
    kEmpty,
    kLiteral,
    kClass,
    kAnyChar,
    kAnyNotNL,
    kAssert,
    kConcat,
    kAlternate,
    kRepeat
  };
  Kind kind = Kind::kEmpty;
  uint32_t rune = 0;
  bool fold = false;
  Ranges ranges;  // kClass: sorted, merged
  Assert assert_kind = Assert::kBeginText;
  int min = 0, max = 0;  // kRepeat; max -1 = unbounded
  bool greedy = true;
  std::vector<std::unique_ptr<Node>> subs;
};
using NodePtr = std::unique_ptr<Node>;

struct Flags {
  bool fold = false, multiline = false, dotnl = false, ungreedy = false;
};

void AddRange(Ranges& r, uint32_t lo, uint32_t hi, bool fold) {
  r.emplace_back(lo, hi);
  if (!fold) return;
  // ASCII case folding: add the other case of any letters in [lo, hi].
  for (uint32_t a = std::max<uint32_t>(lo, 'A'); a <= std::min<uint32_t>(hi, 'Z'); ++a) {
    r.emplace_back(a + 32, a + 32);
  }
  for (uint32_t a = std::max<uint32_t>(lo, 'a'); a <= std::min<uint32_t>(hi, 'z'); ++a) {
    r.emplace_back(a - 32, a - 32);
  }
}

Ranges Normalize(Ranges r) {
  std::sort(r.begin(), r.end());
  Ranges out;
  for (const auto& p : r) {
    if (!out.empty() && p.first <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, p.second);
    } else {
      out.push_back(p);
    }
  }
  return out;
}

Ranges Negate(const Ranges& r) {
  Ranges out;
  uint32_t next = 0;
  for (const auto& p : r) {
    if (p.first > next) out.emplace_back(next, p.first - 1);
    next = p.second + 1;
  }
  if (next <= kMaxRune) out.emplace_back(next, kMaxRune);
  return out;
}

class RegexParser {
 public:
  explicit RegexParser(std::string_view p) : p_(p) {}

  Result<NodePtr> Parse() {
    Flags flags;
    ALLOT_ASSIGN_OR_RETURN(NodePtr n, ParseAlternate(flags, 0));
    if (pos_ < p_.size()) return Err("unexpected )", p_);
    return n;
  }

 private:
  Status Err(std::string_view what, std::string_view arg) {
    return Status(StatusCode::kInvalid,
                  "error parsing regexp: " + std::string(what) + ": `" + std::string(arg) + "`");
  }
  bool More() const { return pos_ < p_.size(); }
  char Cur() const { return p_[pos_]; }

  Result<NodePtr> ParseAlternate(Flags& flags, int depth) {
    if (depth > kMaxNesting) return Err("expression nests too deeply", p_);
    std::vector<NodePtr> alts;
    while (true) {
      ALLOT_ASSIGN_OR_RETURN(NodePtr c, ParseConcat(flags, depth));
      alts.push_back(std::move(c));
      if (More() && Cur() == '|') {
        ++pos_;
        continue;
      }
      break;
    }
    if (alts.size() == 1) return std::move(alts[0]);
    auto n = std::make_unique<Node>();
    n->kind = Node::Kind::kAlternate;
    n->subs = std::move(alts);
    return n;
  }

  Result<NodePtr> ParseConcat(Flags& flags, int depth) {
    auto cat = std::make_unique<Node>();
    cat->kind = Node::Kind::kConcat;
    while (More() && Cur() != '|' && Cur() != ')') {
      size_t atom_start = pos_;
      char c = Cur();
      if (c == '*' || c == '+' || c == '?') {
        return Err("missing argument to repetition operator", p_.substr(pos_, 1));
      }
      NodePtr atom;
      if (c == '(') {
        ALLOT_ASSIGN_OR_RETURN(atom, ParseGroup(flags, depth));
        if (!atom) continue;  // a bare flag group such as (?i)
      } else {
        ALLOT_ASSIGN_OR_RETURN(atom, ParseAtom(flags));
        if (!atom) continue;  // \Q\E with nothing in it
      }
      ALLOT_ASSIGN_OR_RETURN(atom, ParseRepeats(std::move(atom), flags, atom_start));
      cat->subs.push_back(std::move(atom));
    }
    if (cat->subs.size() == 1) return std::move(cat->subs[0]);
    return cat;
  }

  // Returns nullptr for a flags-only group.
  Result<NodePtr> ParseGroup(Flags& flags, int depth) {
    size_t start = pos_;
    ++pos_;  // '('
    Flags inner = flags;
    if (More() && Cur() == '?') {
      ++pos_;
      if (More() && (Cur() == 'P' || Cur() == '<')) {
        if (Cur() == 'P') ++pos_;
        if (!More() || Cur() != '<')
          return Err("invalid or unsupported Perl syntax", p_.substr(start));
        size_t close = p_.find('>', pos_);
        if (close == std::string_view::npos || close == pos_ + 1) {
          return Err("invalid named capture", p_.substr(start));
        }
        pos_ = close + 1;
      } else {
        bool neg = false;
        bool any = false;
        while (true) {
          if (!More()) return Err("missing closing )", p_.substr(start));
          char f = Cur();
          ++pos_;
          if (f == 'i')
            inner.fold = !neg;
          else if (f == 'm')
            inner.multiline = !neg;
          else if (f == 's')
            inner.dotnl = !neg;
          else if (f == 'U')
            inner.ungreedy = !neg;
          else if (f == '-' && !neg) {
            neg = true;
            continue;
          } else if (f == ')') {
            if (!any && !neg) return Err("missing argument to repetition operator", "?");
            flags = inner;  // (?flags) applies to the rest of the enclosing group
            return NodePtr();
          } else if (f == ':') {
            break;
          } else {
            return Err("invalid or unsupported Perl syntax", p_.substr(start, pos_ - start));
          }
          any = true;
        }
      }
    }
    ALLOT_ASSIGN_OR_RETURN(NodePtr body, ParseAlternate(inner, depth + 1));
    if (!More() || Cur() != ')') return Err("missing closing )", p_.substr(start));
    ++pos_;
    return body;
  }

  Result<NodePtr> ParseRepeats(NodePtr atom, const Flags& flags, size_t atom_start) {
    bool repeated = false;
    while (More()) {
      char c = Cur();
      int min = 0, max = 0;
      size_t op_start = pos_;
      if (c == '*') {
        min = 0, max = -1, ++pos_;
      } else if (c == '+') {
        min = 1, max = -1, ++pos_;
      } else if (c == '?') {
        min = 0, max = 1, ++pos_;
      } else if (c == '{') {
        std::optional<std::pair<int, int>> r = ParseCount();
        if (!r) break;  // a literal '{'
        if (r->first > kMaxRepeat || r->second > kMaxRepeat ||
            (r->second >= 0 && r->second < r->first)) {
          return Err("invalid repeat count", p_.substr(op_start, pos_ - op_start));
        }
        min = r->first, max = r->second;
      } else {
        break;
      }
      if (repeated) {
        return Err("invalid nested repetition operator", p_.substr(atom_start, pos_ - atom_start));
      }
      bool greedy = !flags.ungreedy;
      if (More() && Cur() == '?') {
        greedy = !greedy;
        ++pos_;
      }
      if (atom->kind == Node::Kind::kEmpty) {
        return Err("missing argument to repetition operator", p_.substr(op_start, 1));
      }
      auto rep = std::make_unique<Node>();
      rep->kind = Node::Kind::kRepeat;
      rep->min = min, rep->max = max, rep->greedy = greedy;
      rep->subs.push_back(std::move(atom));
      atom = std::move(rep);
      repeated = true;
    }
    return atom;
  }

  // {n}, {n,}, {n,m}; nullopt (position unchanged) when not a repeat.
  std::optional<std::pair<int, int>> ParseCount() {
    size_t p = pos_ + 1;
    auto number = [&](int* out) {
      size_t s = p;
      long v = 0;
      while (p < p_.size() && p_[p] >= '0' && p_[p] <= '9') {
        v = std::min<long>(v * 10 + (p_[p] - '0'), 100000);
        ++p;
      }
      *out = static_cast<int>(v);
      return p > s;
    };
    int lo = 0, hi = 0;
    if (!number(&lo)) return std::nullopt;
    if (p < p_.size() && p_[p] == ',') {
      ++p;
      if (p < p_.size() && p_[p] == '}') {
        hi = -1;
      } else if (!number(&hi)) {
        return std::nullopt;
      }
    } else {
      hi = lo;
    }
    if (p >= p_.size() || p_[p] != '}') return std::nullopt;
    pos_ = p + 1;
    return std::make_pair(lo, hi);
  }

  NodePtr Leaf(Node::Kind k) {
    auto n = std::make_unique<Node>();
    n->kind = k;
    return n;
  }
  NodePtr Literal(uint32_t r, const Flags& f) {
    NodePtr n = Leaf(Node::Kind::kLiteral);
    n->rune = r;
    n->fold = f.fold && ((r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'));
    return n;
  }
  NodePtr Class(Ranges r) {
    NodePtr n = Leaf(Node::Kind::kClass);
    n->ranges = Normalize(std::move(r));
    return n;
  }
  NodePtr AssertNode(Assert a) {
    NodePtr n = Leaf(Node::Kind::kAssert);
    n->assert_kind = a;
    return n;
  }

  Result<NodePtr> ParseAtom(const Flags& flags) {
    char c = Cur();
    switch (c) {
      case '.':
        ++pos_;
        return Leaf(flags.dotnl ? Node::Kind::kAnyChar : Node::Kind::kAnyNotNL);
      case '^':
        ++pos_;
        return AssertNode(flags.multiline ? Assert::kBeginLine : Assert::kBeginText);
      case '$':
        ++pos_;
        return AssertNode(flags.multiline ? Assert::kEndLine : Assert::kEndText);
      case '[':
        return ParseClass(flags);
      case '\\':
        return ParseEscapeAtom(flags);
      default: {
        size_t len;
        uint32_t r = DecodeRune(p_, pos_, &len);
        pos_ += len;
        return Literal(r, flags);
      }
    }
  }

  // \d \s \w and negations into `out`; false if not a Perl class letter.
  static bool PerlClass(char c, Ranges& out) {
    Ranges r;
    char lower = static_cast<char>(c | 0x20);
    if (lower == 'd') {
      r = {{'0', '9'}};
    } else if (lower == 's') {
      r = {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}};
    } else if (lower == 'w') {
      r = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
    } else {
      return false;
    }
    if (c >= 'A' && c <= 'Z') r = Negate(Normalize(r));
    out.insert(out.end(), r.begin(), r.end());
    return true;
  }

  // A single-rune escape after '\' (pos_ at the escaped char); nullopt if not one.
  Result<std::optional<uint32_t>> RuneEscape(size_t esc_start) {
    char c = Cur();
    ++pos_;
    switch (c) {
      case 'a':
        return std::optional<uint32_t>(7);
      case 'f':
        return std::optional<uint32_t>(12);
      case 't':
        return std::optional<uint32_t>(9);
      case 'n':
        return std::optional<uint32_t>(10);
      case 'r':
        return std::optional<uint32_t>(13);
      case 'v':
        return std::optional<uint32_t>(11);
      case 'x': {
        uint32_t v = 0;
        auto hex = [](char h) -> int {
          if (h >= '0' && h <= '9') return h - '0';
          if (h >= 'a' && h <= 'f') return h - 'a' + 10;
          if (h >= 'A' && h <= 'F') return h - 'A' + 10;
          return -1;
        };
        if (More() && Cur() == '{') {
          ++pos_;
          int digits = 0;
          while (More() && hex(Cur()) >= 0) {
            v = v * 16 + static_cast<uint32_t>(hex(Cur()));
            ++pos_;
            if (++digits > 8 || v > kMaxRune) break;
          }
          if (!More() || Cur() != '}' || digits == 0 || v > kMaxRune) {
            return Err("invalid escape sequence", p_.substr(esc_start, pos_ - esc_start));
          }
          ++pos_;
          return std::optional<uint32_t>(v);
        }
        for (int i = 0; i < 2; ++i) {
          if (!More() || hex(Cur()) < 0) {
            return Err("invalid escape sequence", p_.substr(esc_start, pos_ - esc_start));
          }
          v = v * 16 + static_cast<uint32_t>(hex(Cur()));
          ++pos_;
        }
        return std::optional<uint32_t>(v);
      }
      case '0': {
        uint32_t v = 0;
        for (int i = 0; i < 2 && More() && Cur() >= '0' && Cur() <= '7'; ++i) {
          v = v * 8 + static_cast<uint32_t>(Cur() - '0');
          ++pos_;
        }
        return std::optional<uint32_t>(v);
      }
      default:
        if (static_cast<unsigned char>(c) < 0x80 && !IsWordRune(static_cast<unsigned char>(c))) {
          return std::optional<uint32_t>(static_cast<unsigned char>(c));
        }
        --pos_;
        return std::optional<uint32_t>();
    }
  }

  Result<NodePtr> ParseEscapeAtom(const Flags& flags) {
    size_t start = pos_;
    ++pos_;  // '\'
    if (!More()) return Err("trailing backslash at end of expression", "");
    char c = Cur();
    Ranges perl;
    if (PerlClass(c, perl)) {
      ++pos_;
      return Class(std::move(perl));
    }
    switch (c) {
      case 'b':
        ++pos_;
        return AssertNode(Assert::kWord);
      case 'B':
        ++pos_;
        return AssertNode(Assert::kNotWord);
      case 'A':
        ++pos_;
        return AssertNode(Assert::kBeginText);
      case 'z':
        ++pos_;
        return AssertNode(Assert::kEndText);
      case 'Q': {
        ++pos_;
        size_t end = p_.find("\\E", pos_);
        std::string_view lit =
            p_.substr(pos_, end == std::string_view::npos ? p_.npos : end - pos_);
        pos_ = end == std::string_view::npos ? p_.size() : end + 2;
        if (lit.empty()) return NodePtr();
        auto cat = std::make_unique<Node>();
        cat->kind = Node::Kind::kConcat;
        for (size_t i = 0; i < lit.size();) {
          size_t len;
          cat->subs.push_back(Literal(DecodeRune(lit, i, &len), flags));
          i += len;
        }
        return cat;
      }
      default:
        break;
    }
    ALLOT_ASSIGN_OR_RETURN(std::optional<uint32_t> r, RuneEscape(start));
    if (!r) return Err("invalid escape sequence", p_.substr(start, 2));
    return Literal(*r, flags);
  }

  Result<NodePtr> ParseClass(const Flags& flags) {
    size_t start = pos_;
    ++pos_;  // '['
    bool negated = false;
    if (More() && Cur() == '^') {
      negated = true;
      ++pos_;
    }
    Ranges r;
    bool first = true;
    while (true) {
      if (!More()) return Err("missing closing ]", p_.substr(start));
      if (Cur() == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      if (Cur() == '[' && pos_ + 1 < p_.size() && p_[pos_ + 1] == ':') {
        size_t close = p_.find(":]", pos_ + 2);
        if (close != std::string_view::npos) {
          std::string_view name = p_.substr(pos_ + 2, close - pos_ - 2);
          bool neg = !name.empty() && name[0] == '^';
          if (neg) name.remove_prefix(1);
          Ranges pr;
          if (!PosixClass(name, pr)) {
            return Err("invalid character class range", p_.substr(pos_, close + 2 - pos_));
          }
          if (neg) pr = Negate(Normalize(pr));
          for (auto& x : pr) AddRange(r, x.first, x.second, flags.fold);
          pos_ = close + 2;
          continue;
        }
      }
      size_t item_start = pos_;
      ALLOT_ASSIGN_OR_RETURN(std::optional<uint32_t> lo, ClassRune(r, flags));
      if (!lo) continue;  // a Perl class was added
      uint32_t hi = *lo;
      if (pos_ + 1 < p_.size() && Cur() == '-' && p_[pos_ + 1] != ']') {
        ++pos_;
        ALLOT_ASSIGN_OR_RETURN(std::optional<uint32_t> h, ClassRune(r, flags));
        if (!h || *h < *lo) {
          return Err("invalid character class range", p_.substr(item_start, pos_ - item_start));
        }
        hi = *h;
      }
      AddRange(r, *lo, hi, flags.fold);
    }
    r = Normalize(std::move(r));
    if (negated) r = Negate(r);
    return Class(std::move(r));
  }

  // One class member: a rune (returned) or a Perl class (added to `r`, nullopt returned).
  Result<std::optional<uint32_t>> ClassRune(Ranges& r, const Flags& flags) {
    if (Cur() != '\\') {
      size_t len;
      uint32_t rune = DecodeRune(p_, pos_, &len);
      pos_ += len;
      return std::optional<uint32_t>(rune);
    }
    size_t start = pos_;
    ++pos_;
    if (!More()) return Err("trailing backslash at end of expression", "");
    Ranges perl;
    if (PerlClass(Cur(), perl)) {
      ++pos_;
      for (auto& x : perl) AddRange(r, x.first, x.second, flags.fold);
      return std::optional<uint32_t>();
    }
    ALLOT_ASSIGN_OR_RETURN(std::optional<uint32_t> rune, RuneEscape(start));
    if (!rune) return Err("invalid escape sequence", p_.substr(start, 2));
    return rune;
  }

  static bool PosixClass(std::string_view name, Ranges& r) {
    if (name == "alnum")
      r = {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}};
    else if (name == "alpha")
      r = {{'A', 'Z'}, {'a', 'z'}};
    else if (name == "ascii")
      r = {{0, 0x7F}};
    else if (name == "blank")
      r = {{'\t', '\t'}, {' ', ' '}};
    else if (name == "cntrl")
      r = {{0, 0x1F}, {0x7F, 0x7F}};
    else if (name == "digit")
      r = {{'0', '9'}};
    else if (name == "graph")
      r = {{'!', '~'}};
    else if (name == "lower")
      r = {{'a', 'z'}};
    else if (name == "print")
      r = {{' ', '~'}};
    else if (name == "punct")
      r = {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}};
    else if (name == "space")
      r = {{'\t', '\r'}, {' ', ' '}};
    else if (name == "upper")
      r = {{'A', 'Z'}};
    else if (name == "word")
      r = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
    else if (name == "xdigit")
      r = {{'0', '9'}, {'A', 'F'}, {'a', 'f'}};
    else
      return false;
    return true;
  }

  std::string_view p_;
  size_t pos_ = 0;
};

}  // namespace

// --- program ---------------------------------------------------------------------------------

struct Regex::Inst {
  enum class Op : uint8_t { kRune, kClass, kAny, kAnyNotNL, kSplit, kJmp, kAssert, kMatch };
  Op op = Op::kMatch;
  uint32_t rune = 0;
  bool fold = false;
  Assert assert_kind = Assert::kBeginText;
  int x = 0, y = 0;  // kSplit: preferred x, then y; kJmp: x
  Ranges ranges;
};

namespace {

class Emitter {
 public:
  explicit Emitter(std::vector<Regex::Inst>& prog) : prog_(prog) {}
  bool overflow() const { return overflow_; }

  int Emit(Regex::Inst inst) {
    if (prog_.size() >= kMaxProgram) {
      overflow_ = true;
      return static_cast<int>(prog_.size()) - 1;
    }
    prog_.push_back(std::move(inst));
    return static_cast<int>(prog_.size()) - 1;
  }
  int Here() const { return static_cast<int>(prog_.size()); }

  void Compile(const Node& n, int depth) {
    if (overflow_ || depth > kMaxNesting * 2) {
      overflow_ = true;
      return;
    }
    using Op = Regex::Inst::Op;
    Regex::Inst inst;
    switch (n.kind) {
      case Node::Kind::kEmpty:
        return;
      case Node::Kind::kLiteral:
        inst.op = Op::kRune;
        inst.rune = n.rune;
        inst.fold = n.fold;
        Emit(std::move(inst));
        return;
      case Node::Kind::kClass:
        inst.op = Op::kClass;
        inst.ranges = n.ranges;
        Emit(std::move(inst));
        return;
      case Node::Kind::kAnyChar:
        inst.op = Op::kAny;
        Emit(std::move(inst));
        return;
      case Node::Kind::kAnyNotNL:
        inst.op = Op::kAnyNotNL;
        Emit(std::move(inst));
        return;
      case Node::Kind::kAssert:
        inst.op = Op::kAssert;
        inst.assert_kind = n.assert_kind;
        Emit(std::move(inst));
        return;
      case Node::Kind::kConcat:
        for (const auto& s : n.subs) Compile(*s, depth + 1);
        return;
      case Node::Kind::kAlternate: {
        std::vector<int> jumps;
        for (size_t i = 0; i < n.subs.size(); ++i) {
          if (i + 1 < n.subs.size()) {
            int split = Emit(Regex::Inst{Op::kSplit});
            prog_[split].x = Here();
            Compile(*n.subs[i], depth + 1);
            jumps.push_back(Emit(Regex::Inst{Op::kJmp}));
            if (overflow_) return;
            prog_[split].y = Here();
          } else {
            Compile(*n.subs[i], depth + 1);
          }
        }
        if (overflow_) return;
        for (int j : jumps) prog_[j].x = Here();
        return;
      }
      case Node::Kind::kRepeat:
        CompileRepeat(n, depth);
        return;
    }
  }

 private:
  // A split preferring `first` (greedy: the body) over the other branch.
  void SetSplit(int split, int body, int skip, bool greedy) {
    prog_[split].x = greedy ? body : skip;
    prog_[split].y = greedy ? skip : body;
  }

  void CompileRepeat(const Node& n, int depth) {
    using Op = Regex::Inst::Op;
    const Node& body = *n.subs[0];
    for (int i = 0; i < n.min && !overflow_; ++i) Compile(body, depth + 1);
    if (n.max < 0) {
      int split = Emit(Regex::Inst{Op::kSplit});
      int start = Here();
      Compile(body, depth + 1);
      int jmp = Emit(Regex::Inst{Op::kJmp});
      if (overflow_) return;
      prog_[jmp].x = split;
      SetSplit(split, start, Here(), n.greedy);
      return;
    }
    std::vector<int> splits;
    for (int i = n.min; i < n.max && !overflow_; ++i) {
      int split = Emit(Regex::Inst{Op::kSplit});
      splits.push_back(split);
      prog_[split].x = Here();
      Compile(body, depth + 1);
    }
    if (overflow_) return;
    for (int s : splits) SetSplit(s, s + 1, Here(), n.greedy);
  }

  std::vector<Regex::Inst>& prog_;
  bool overflow_ = false;
};

bool AssertHolds(Assert a, std::string_view text, size_t pos) {
  auto before = [&]() -> uint32_t {
    if (pos == 0) return 0xFFFFFFFF;
    size_t i = pos - 1;
    while (i > 0 && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
    size_t len;
    return DecodeRune(text, i, &len);
  };
  auto after = [&]() -> uint32_t {
    if (pos >= text.size()) return 0xFFFFFFFF;
    size_t len;
    return DecodeRune(text, pos, &len);
  };
  switch (a) {
    case Assert::kBeginText:
      return pos == 0;
    case Assert::kEndText:
      return pos == text.size();
    case Assert::kBeginLine:
      return pos == 0 || text[pos - 1] == '\n';
    case Assert::kEndLine:
      return pos == text.size() || text[pos] == '\n';
    case Assert::kWord:
    case Assert::kNotWord: {
      bool b = IsWordRune(before()) != IsWordRune(after());
      return a == Assert::kWord ? b : !b;
    }
  }
  return false;
}

}  // namespace

Regex::Regex() = default;
Regex::~Regex() = default;

Result<std::shared_ptr<const Regex>> Regex::Compile(std::string_view pattern) {
  RegexParser parser(pattern);
  ALLOT_ASSIGN_OR_RETURN(NodePtr tree, parser.Parse());
  auto re = std::make_shared<Regex>();
  re->pattern_ = std::string(pattern);
  Emitter emitter(re->prog_);
  if (tree) emitter.Compile(*tree, 0);
  emitter.Emit(Inst{Inst::Op::kMatch});
  if (emitter.overflow()) {
    return Status(StatusCode::kInvalid, "error parsing regexp: expression too large");
  }
  return std::shared_ptr<const Regex>(std::move(re));
}

bool Regex::Search(std::string_view text) const { return Run(text, 0, true).has_value(); }

std::optional<std::pair<size_t, size_t>> Regex::Find(std::string_view text, size_t from) const {
  return Run(text, from, false);
}

std::optional<std::pair<size_t, size_t>> Regex::Run(std::string_view text, size_t from,
                                                    bool first_only) const {
  struct Thread {
    int pc;
    size_t start;
  };
  const size_t n = prog_.size();
  std::vector<Thread> clist, nlist, stack;
  std::vector<size_t> mark(n, static_cast<size_t>(-1));  // generation per pc
  size_t generation = 0;
  clist.reserve(n);
  nlist.reserve(n);

  // Follows empty transitions from `pc` at text position `pos`, appending rune-consuming and
  // match instructions to `list` in priority order.
  auto add = [&](std::vector<Thread>& list, int pc0, size_t start, size_t pos) {
    stack.clear();
    stack.push_back({pc0, start});
    while (!stack.empty()) {
      Thread t = stack.back();
      stack.pop_back();
      if (mark[t.pc] == generation) continue;
      mark[t.pc] = generation;
      const Inst& inst = prog_[t.pc];
      switch (inst.op) {
        case Inst::Op::kJmp:
          stack.push_back({inst.x, t.start});
          break;
        case Inst::Op::kSplit:
          stack.push_back({inst.y, t.start});  // lower priority below
          stack.push_back({inst.x, t.start});
          break;
        case Inst::Op::kAssert:
          if (AssertHolds(inst.assert_kind, text, pos)) stack.push_back({t.pc + 1, t.start});
          break;
        default:
          list.push_back(t);
      }
    }
  };

  std::optional<std::pair<size_t, size_t>> match;
  ++generation;
  for (size_t pos = from;;) {
    if (!match) {
      add(clist, start_, pos, pos);
    } else if (clist.empty()) {
      break;
    }
    uint32_t rune = 0;
    size_t len = 0;
    if (pos < text.size()) rune = DecodeRune(text, pos, &len);
    ++generation;  // marks for nlist (position pos + len)
    for (const Thread& t : clist) {
      const Inst& inst = prog_[t.pc];
      bool ok = false;
      switch (inst.op) {
        case Inst::Op::kMatch:
          match = std::make_pair(t.start, pos);
          if (first_only) return match;
          break;
        case Inst::Op::kRune:
          ok = len > 0 && (inst.fold ? FoldAscii(rune) == FoldAscii(inst.rune) : rune == inst.rune);
          break;
        case Inst::Op::kClass: {
          if (len == 0) break;
          auto it = std::upper_bound(inst.ranges.begin(), inst.ranges.end(),
                                     std::make_pair(rune, kMaxRune + 1));
          ok = it != inst.ranges.begin() && std::prev(it)->second >= rune;
          break;
        }
        case Inst::Op::kAny:
          ok = len > 0;
          break;
        case Inst::Op::kAnyNotNL:
          ok = len > 0 && rune != '\n';
          break;
        default:
          break;
      }
      if (inst.op == Inst::Op::kMatch) break;  // lower-priority threads are cut off
      if (ok) add(nlist, t.pc + 1, t.start, pos + len);
    }
    if (len == 0) break;  // end of text: every pending thread has been run
    std::swap(clist, nlist);
    nlist.clear();
    pos += len;
  }
  return match;
}

}  // namespace allot::cel

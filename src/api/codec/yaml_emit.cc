// JSON to block-style YAML, following go-yaml v2's Marshal of the value sigs.k8s.io/yaml's
// JSONToYAML decodes (which is what `kubectl get -o yaml` prints).
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/codec/codec.h"
#include "api/codec/yaml.h"
#include "api/codec/yaml_scalar.h"
#include "api/machinery/go_format.h"
#include "common/utf8.h"

namespace allot::api {
namespace {

constexpr int kMaxDepth = 1000;

struct JNode {
  enum class Kind { kNull, kTrue, kFalse, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  std::string text;               // number text or string value
  std::vector<JNode> items;       // array elements, or object member values
  std::vector<std::string> keys;  // object member names, parallel to `items`
  bool Empty() const { return items.empty(); }
  bool IsCollection() const { return kind == Kind::kArray || kind == Kind::kObject; }
};

// RapidJSON SAX handler building a JNode tree, numbers kept as text.
class TreeHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeHandler> {
 public:
  JNode root;
  bool too_deep = false;

  bool Null() { return Add(JNode::Kind::kNull, {}); }
  bool Bool(bool b) { return Add(b ? JNode::Kind::kTrue : JNode::Kind::kFalse, {}); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    return Add(JNode::Kind::kNumber, std::string_view(s, n));
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    return Add(JNode::Kind::kString, std::string_view(s, n));
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    key_.assign(s, n);
    return true;
  }
  bool StartObject() { return Open(JNode::Kind::kObject); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool StartArray() { return Open(JNode::Kind::kArray); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

 private:
  JNode* Place(JNode::Kind kind, std::string_view text) {
    JNode n;
    n.kind = kind;
    n.text.assign(text);
    if (stack_.empty()) {
      root = std::move(n);
      return &root;
    }
    JNode* parent = stack_.back();
    if (parent->kind == JNode::Kind::kObject) parent->keys.push_back(std::move(key_));
    parent->items.push_back(std::move(n));
    return &parent->items.back();
  }
  bool Add(JNode::Kind kind, std::string_view text) {
    Place(kind, text);
    return true;
  }
  bool Open(JNode::Kind kind) {
    if (stack_.size() >= kMaxDepth) {
      too_deep = true;
      return false;
    }
    stack_.push_back(Place(kind, {}));
    return true;
  }
  bool Close() {
    stack_.pop_back();
    return true;
  }

  std::vector<JNode*> stack_;
  std::string key_;
};

// --- key order (go-yaml's keyList.Less for string keys) ---------------------------------------

std::u32string Runes(std::string_view s) { return utf8::Runes(s); }

// unicode.IsLetter, exact for ASCII; other code points from U+00C0 on count as letters (an
// approximation: they sort after digits and punctuation, as most of them do in Go).
bool IsLetter(char32_t r) {
  return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == 0xAA || r == 0xB5 || r == 0xBA ||
         (r >= 0xC0 && r != 0xD7 && r != 0xF7 && r != 0xFFFD);
}
bool IsDigit(char32_t r) { return r >= '0' && r <= '9'; }

bool KeyLess(std::string_view a_text, std::string_view b_text) {
  std::u32string a = Runes(a_text), b = Runes(b_text);
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i]) continue;
    bool al = IsLetter(a[i]), bl = IsLetter(b[i]);
    if (al && bl) return a[i] < b[i];
    if (al || bl) return bl;
    uint64_t an = 0, bn = 0;  // Go's int64 arithmetic, wrapping alike
    if (a[i] == '0' || b[i] == '0') {
      for (size_t j = i; j-- > 0 && IsDigit(a[j]);) {
        if (a[j] != '0') {
          an = bn = 1;
          break;
        }
      }
    }
    size_t ai = i, bi = i;
    for (; ai < a.size() && IsDigit(a[ai]); ++ai) an = an * 10 + (a[ai] - '0');
    for (; bi < b.size() && IsDigit(b[bi]); ++bi) bn = bn * 10 + (b[bi] - '0');
    if (an != bn) return static_cast<int64_t>(an) < static_cast<int64_t>(bn);
    if (ai != bi) return ai < bi;
    return a[i] < b[i];
  }
  return a.size() < b.size();
}

// Drops all but the last of repeated keys and sorts, recursively.
void Normalize(JNode& n) {
  for (JNode& item : n.items) Normalize(item);
  if (n.kind != JNode::Kind::kObject) return;
  std::unordered_map<std::string, size_t> last;
  for (size_t i = 0; i < n.keys.size(); ++i) last[n.keys[i]] = i;
  std::vector<size_t> kept;
  for (size_t i = 0; i < n.keys.size(); ++i) {
    if (last[n.keys[i]] == i) kept.push_back(i);
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [&](size_t x, size_t y) { return KeyLess(n.keys[x], n.keys[y]); });
  std::vector<std::string> keys;
  std::vector<JNode> items;
  for (size_t i : kept) {
    keys.push_back(std::move(n.keys[i]));
    items.push_back(std::move(n.items[i]));
  }
  n.keys = std::move(keys);
  n.items = std::move(items);
}

// --- scalar styles ----------------------------------------------------------------------------

bool IsBreak(char32_t r) {
  return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029;
}

// go-yaml's is_printable (tab is not), excluding the BOM.
bool IsPrintable(char32_t r) {
  return r == 0x0A || (r >= 0x20 && r <= 0x7E) || r == 0x85 || (r >= 0xA0 && r <= 0xD7FF) ||
         (r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF) || (r >= 0x10000 && r <= 0x10FFFF);
}

bool ValidUtf8(std::string_view s) { return utf8::Valid(s); }

bool HasSpecialCharacters(std::string_view s) {
  if (!ValidUtf8(s)) return true;
  for (char32_t r : Runes(s)) {
    if (!IsPrintable(r) || (IsBreak(r) && r != '\n')) return true;
  }
  return false;
}

bool PlainAllowed(std::string_view s) {
  if (s.empty() || HasSpecialCharacters(s) || s.find('\n') != std::string_view::npos) return false;
  if (s.front() == ' ' || s.back() == ' ') return false;
  if (std::string_view("#,[]{}&*!|>'\"%@`").find(s[0]) != std::string_view::npos) return false;
  if ((s[0] == '-' || s[0] == '?' || s[0] == ':') && (s.size() == 1 || s[1] == ' ')) return false;
  if (s.substr(0, 3) == "---" || s.substr(0, 3) == "...") return false;
  if (s.back() == ':' || s.find(": ") != std::string_view::npos ||
      s.find(" #") != std::string_view::npos) {
    return false;
  }
  return true;
}

std::string SingleQuoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string DoubleQuoted(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  auto hex = [&](char32_t r, int digits) {
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += kHex[(r >> shift) & 0xF];
  };
  for (char32_t r : Runes(s)) {
    switch (r) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case 0:
        out += "\\0";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      case 0x1B:
        out += "\\e";
        break;
      case 0x85:
        out += "\\N";
        break;
      case 0x2028:
        out += "\\L";
        break;
      case 0x2029:
        out += "\\P";
        break;
      default:
        if (IsPrintable(r) && r != 0xFFFD) {
          utf8::Append(out, r);
        } else if (r <= 0xFF) {
          out += "\\x";
          hex(r, 2);
        } else if (r <= 0xFFFF) {
          out += "\\u";
          hex(r, 4);
        } else {
          out += "\\U";
          hex(r, 8);
        }
    }
  }
  return out + "\"";
}

// The inline form of a string (not a literal block).
std::string InlineString(std::string_view s) {
  if (s.find('\n') == std::string_view::npos &&
      (!yaml_internal::ResolvesToString(s) || yaml_internal::IsBase60Float(s))) {
    return DoubleQuoted(s);
  }
  if (PlainAllowed(s)) return std::string(s);
  if (!HasSpecialCharacters(s) && s.find('\n') == std::string_view::npos) return SingleQuoted(s);
  return DoubleQuoted(s);
}

// Whether a multi-line string can be written as a literal block without changing it.
bool LiteralAllowed(std::string_view s) {
  if (s.find('\n') == std::string_view::npos || s.front() == ' ' || s.front() == '\n') {
    return false;
  }
  if (HasSpecialCharacters(s)) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ' ' && (i + 1 == s.size() || s[i + 1] == '\n')) return false;
  }
  return true;
}

// go-yaml v2 Marshal of a JSON number decoded by yaml.Unmarshal: integers stay integers, other
// numbers are float64 printed with %g; numbers too large for a float64 stay strings.
std::string NumberText(std::string_view text) {
  bool integral = text.find_first_of(".eE") == std::string_view::npos;
  if (integral) {
    if (std::optional<int64_t> i = gofmt::ParseInt(text)) return std::to_string(*i);
    if (std::optional<uint64_t> u = gofmt::ParseUint(text)) return std::to_string(*u);
  }
  if (std::optional<double> f = gofmt::ParseDecimalFloat(text)) {
    return gofmt::FormatFloat(*f, 'g', 64);
  }
  return InlineString(text);
}

// --- block emitter ----------------------------------------------------------------------------

class Emitter {
 public:
  std::string out;

  void Document(const JNode& root) {
    if (root.kind == JNode::Kind::kObject && !root.Empty()) {
      Mapping(root, 0, false);
    } else if (root.kind == JNode::Kind::kArray && !root.Empty()) {
      Sequence(root, 0, false);
    } else {
      Scalar(root, 0, false);
    }
  }

 private:
  // Writes a scalar or empty collection after "key:", "-" or at the top (`space` says whether a
  // separating space is needed), ending the line.
  void Scalar(const JNode& n, int indent, bool space) {
    if (space) out += ' ';
    if (n.kind == JNode::Kind::kString && LiteralAllowed(n.text)) {
      Literal(n.text, indent + 2);
      return;
    }
    switch (n.kind) {
      case JNode::Kind::kNull:
        out += "null";
        break;
      case JNode::Kind::kTrue:
        out += "true";
        break;
      case JNode::Kind::kFalse:
        out += "false";
        break;
      case JNode::Kind::kNumber:
        out += NumberText(n.text);
        break;
      case JNode::Kind::kString:
        out += InlineString(n.text);
        break;
      case JNode::Kind::kArray:
        out += "[]";
        break;
      case JNode::Kind::kObject:
        out += "{}";
        break;
    }
    out += '\n';
  }

  void Literal(std::string_view s, int indent) {
    size_t end = s.find_last_not_of('\n');
    size_t trailing = s.size() - end - 1;
    std::string_view body = s.substr(0, end + 1);
    out += trailing == 0 ? "|-" : trailing == 1 ? "|" : "|+";
    out += '\n';
    size_t start = 0;
    while (start <= body.size()) {
      size_t nl = body.find('\n', start);
      std::string_view line = body.substr(start, nl == std::string_view::npos ? nl : nl - start);
      if (!line.empty()) out.append(static_cast<size_t>(indent), ' ').append(line);
      out += '\n';
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    for (size_t i = 1; i < trailing; ++i) out += '\n';
  }

  void Mapping(const JNode& m, int indent, bool inline_first) {
    for (size_t i = 0; i < m.items.size(); ++i) {
      if (i > 0 || !inline_first) out.append(static_cast<size_t>(indent), ' ');
      const std::string& key = m.keys[i];
      const JNode& value = m.items[i];
      // A plain "<<" key would read back as a merge key (go-yaml emits it plain anyway).
      out += key == "<<" ? DoubleQuoted(key) : InlineString(key);
      out += ':';
      if (!value.IsCollection() || value.Empty()) {
        Scalar(value, indent, true);
      } else if (value.kind == JNode::Kind::kObject) {
        out += '\n';
        Mapping(value, indent + 2, false);
      } else {
        out += '\n';
        Sequence(value, indent, false);  // go-yaml does not indent lists under a key
      }
    }
  }

  void Sequence(const JNode& s, int indent, bool inline_first) {
    for (size_t i = 0; i < s.items.size(); ++i) {
      if (i > 0 || !inline_first) out.append(static_cast<size_t>(indent), ' ');
      out += '-';
      const JNode& item = s.items[i];
      if (!item.IsCollection() || item.Empty()) {
        Scalar(item, indent, true);
      } else if (item.kind == JNode::Kind::kObject) {
        out += ' ';
        Mapping(item, indent + 2, true);
      } else {
        out += ' ';
        Sequence(item, indent + 2, true);
      }
    }
  }
};

}  // namespace

Result<std::string> JsonToYaml(std::string_view json) {
  TreeHandler handler;
  rapidjson::Reader reader;
  rapidjson::MemoryStream stream(json.data(), json.size());
  constexpr unsigned kFlags =
      rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;
  rapidjson::ParseResult ok = reader.Parse<kFlags>(stream, handler);
  if (handler.too_deep) {
    return BadRequestError("invalid JSON: nested deeper than " + std::to_string(kMaxDepth) +
                           " levels");
  }
  if (!ok) return JsonParseError(json, ok.Offset(), rapidjson::GetParseError_En(ok.Code()));
  Normalize(handler.root);
  Emitter emitter;
  emitter.Document(handler.root);
  return std::move(emitter.out);
}

}  // namespace allot::api

// String functions: the standard contains/startsWith/endsWith/matches, cel-go's ext.Strings
// (charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join;
// indices count code points, errors "index out of range: N") and the Kubernetes regex library
// (find, findAll). Regular expressions use cel/regex.h (RE2 syntax).
#include <algorithm>
#include <limits>

#include "cel/ast.h"
#include "cel/library.h"
#include "cel/regex.h"
#include "common/utf8.h"

namespace allot::cel {

namespace {

using Args = std::span<const Value>;
using R = Result<Value>;

void Reg(Library& lib, std::string_view name, std::string id, std::vector<TypePtr> params,
         TypePtr result, FunctionImpl impl, CostModel cost, bool member = true) {
  lib.Add(name, Overload{std::move(id), member, std::move(params), std::move(result), impl, cost});
}

// Byte offset of code point `index` (index <= code point count).
size_t ByteOffset(std::string_view s, int64_t index) {
  size_t i = 0;
  for (int64_t n = 0; n < index && i < s.size(); ++n) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return i;
}

Status OutOfRange(int64_t i) { return EvalError("index out of range: " + std::to_string(i)); }

R Contains(const CallContext&, Args a) {
  return Value::Bool(a[0].string_value().find(a[1].string_value()) != std::string_view::npos);
}
R StartsWith(const CallContext&, Args a) {
  return Value::Bool(a[0].string_value().starts_with(a[1].string_value()));
}
R EndsWith(const CallContext&, Args a) {
  return Value::Bool(a[0].string_value().ends_with(a[1].string_value()));
}

Result<std::shared_ptr<const Regex>> RegexFor(const CallContext& ctx, const Value& pattern) {
  if (ctx.call && ctx.call->regex) return ctx.call->regex;
  return Regex::Compile(pattern.string_value());
}

R Matches(const CallContext& ctx, Args a) {
  ALLOT_ASSIGN_OR_RETURN(std::shared_ptr<const Regex> re, RegexFor(ctx, a[1]));
  return Value::Bool(re->Search(a[0].string_value()));
}

R Find(const CallContext& ctx, Args a) {
  ALLOT_ASSIGN_OR_RETURN(std::shared_ptr<const Regex> re, RegexFor(ctx, a[1]));
  std::string_view s = a[0].string_value();
  auto m = re->Find(s);
  if (!m) return Value::OwnedString("");
  return Value::OwnedString(std::string(s.substr(m->first, m->second - m->first)));
}

R FindAll(const CallContext& ctx, Args a) {
  ALLOT_ASSIGN_OR_RETURN(std::shared_ptr<const Regex> re, RegexFor(ctx, a[1]));
  int64_t limit = a.size() > 2 ? a[2].int_value() : -1;
  std::string_view s = a[0].string_value();
  std::vector<Value> out;
  size_t from = 0;
  size_t prev_end = std::string_view::npos;
  while (limit < 0 || static_cast<int64_t>(out.size()) < limit) {
    if (from > s.size()) break;
    auto m = re->Find(s, from);
    if (!m) break;
    // Go's FindAll skips an empty match right after the previous match.
    if (!(m->first == m->second && m->first == prev_end)) {
      out.push_back(Value::OwnedString(std::string(s.substr(m->first, m->second - m->first))));
    }
    prev_end = m->second;
    from = m->second > m->first ? m->second : m->second + 1;
  }
  return Value::List(std::move(out));
}

R CharAt(const CallContext&, Args a) {
  std::string_view s = a[0].string_value();
  int64_t i = a[1].int_value();
  int64_t n = CodePointCount(s);
  if (i < 0 || i > n) return OutOfRange(i);
  if (i == n) return Value::OwnedString("");
  size_t b = ByteOffset(s, i);
  size_t e = ByteOffset(s, i + 1);
  return Value::OwnedString(std::string(s.substr(b, e - b)));
}

R IndexOf(const CallContext&, Args a) {
  std::string_view s = a[0].string_value();
  std::string_view sub = a[1].string_value();
  int64_t offset = a.size() > 2 ? a[2].int_value() : 0;
  int64_t n = CodePointCount(s);
  if (offset < 0 || offset > n) return OutOfRange(offset);
  size_t from = ByteOffset(s, offset);
  size_t pos = s.find(sub, from);
  if (pos == std::string_view::npos) return Value::Int(-1);
  return Value::Int(CodePointCount(s.substr(0, pos)));
}

R LastIndexOf(const CallContext&, Args a) {
  std::string_view s = a[0].string_value();
  std::string_view sub = a[1].string_value();
  int64_t n = CodePointCount(s);
  int64_t offset = a.size() > 2 ? a[2].int_value() : n;
  if (offset < 0 || offset > n) return OutOfRange(offset);
  if (sub.empty()) return Value::Int(offset);
  size_t limit = ByteOffset(s, offset);  // the match must start at or before this byte
  size_t pos = s.rfind(sub, limit);
  if (pos == std::string_view::npos) return Value::Int(-1);
  return Value::Int(CodePointCount(s.substr(0, pos)));
}

R LowerAscii(const CallContext&, Args a) {
  std::string s(a[0].string_value());
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return Value::OwnedString(std::move(s));
}

R UpperAscii(const CallContext&, Args a) {
  std::string s(a[0].string_value());
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  }
  return Value::OwnedString(std::move(s));
}

// The number of replacements Replace makes.
uint64_t CountReplacements(std::string_view s, std::string_view from, int64_t n) {
  uint64_t hits = 0;
  if (from.empty()) {
    hits = static_cast<uint64_t>(CodePointCount(s)) + 1;
  } else {
    for (size_t p = s.find(from); p != std::string_view::npos; p = s.find(from, p + from.size())) {
      ++hits;
    }
  }
  return n < 0 ? hits : std::min<uint64_t>(hits, static_cast<uint64_t>(n));
}

R Replace(const CallContext& ctx, Args a) {
  std::string_view s = a[0].string_value();
  std::string_view from = a[1].string_value();
  std::string_view to = a[2].string_value();
  int64_t n = a.size() > 3 ? a[3].int_value() : -1;
  ALLOT_RETURN_IF_ERROR(
      ChargeOutput(ctx, SatAdd(s.size(), SatMul(CountReplacements(s, from, n), to.size()))));
  std::string out;
  size_t pos = 0;
  int64_t done = 0;
  while (n < 0 || done < n) {
    size_t hit;
    if (from.empty()) {
      // Go's strings.Replace with an empty old string inserts at every code point boundary.
      if (pos > s.size()) break;
      hit = pos;
    } else {
      hit = s.find(from, pos);
      if (hit == std::string_view::npos) break;
    }
    out.append(s.substr(pos, hit - pos));
    out.append(to);
    ++done;
    if (from.empty()) {
      if (hit >= s.size()) {
        pos = s.size() + 1;
        break;
      }
      size_t next = ByteOffset(s.substr(hit), 1);
      out.append(s.substr(hit, next));
      pos = hit + next;
    } else {
      pos = hit + from.size();
    }
  }
  if (pos <= s.size()) out.append(s.substr(pos));
  return Value::OwnedString(std::move(out));
}

R Split(const CallContext&, Args a) {
  std::string_view s = a[0].string_value();
  std::string_view sep = a[1].string_value();
  int64_t n = a.size() > 2 ? a[2].int_value() : -1;
  std::vector<Value> out;
  if (n == 0) return Value::List(std::move(out));
  auto push = [&](std::string_view part) { out.push_back(Value::OwnedString(std::string(part))); };
  if (sep.empty()) {
    size_t i = 0;
    while (i < s.size()) {
      if (n > 0 && static_cast<int64_t>(out.size()) == n - 1) {
        push(s.substr(i));
        return Value::List(std::move(out));
      }
      size_t len = ByteOffset(s.substr(i), 1);
      push(s.substr(i, len));
      i += len;
    }
    return Value::List(std::move(out));
  }
  size_t pos = 0;
  while (n < 0 || static_cast<int64_t>(out.size()) < n - 1) {
    size_t hit = s.find(sep, pos);
    if (hit == std::string_view::npos) break;
    push(s.substr(pos, hit - pos));
    pos = hit + sep.size();
  }
  push(s.substr(pos));
  return Value::List(std::move(out));
}

R Substring(const CallContext&, Args a) {
  std::string_view s = a[0].string_value();
  int64_t n = CodePointCount(s);
  int64_t start = a[1].int_value();
  int64_t end = a.size() > 2 ? a[2].int_value() : n;
  if (start < 0 || start > n) return OutOfRange(start);
  if (end < 0 || end > n) return OutOfRange(end);
  if (start > end) {
    return EvalError("invalid substring range. start: " + std::to_string(start) +
                     ", end: " + std::to_string(end));
  }
  size_t b = ByteOffset(s, start);
  size_t e = ByteOffset(s, end);
  return Value::OwnedString(std::string(s.substr(b, e - b)));
}

bool IsUnicodeSpace(uint32_t r) {
  return r == ' ' || (r >= '\t' && r <= '\r') || r == 0x85 || r == 0xA0 || r == 0x1680 ||
         (r >= 0x2000 && r <= 0x200A) || r == 0x2028 || r == 0x2029 || r == 0x202F || r == 0x205F ||
         r == 0x3000;
}

// The code point starting at s[i] and its length (common/utf8.h's rule for invalid bytes).
uint32_t RuneAt(std::string_view s, size_t i, size_t* len) {
  utf8::Rune r = utf8::Decode(s, i);
  *len = r.width;
  return r.value;
}

R Trim(const CallContext&, Args a) {
  std::string_view s = a[0].string_value();
  size_t b = 0;
  while (b < s.size()) {
    size_t len;
    if (!IsUnicodeSpace(RuneAt(s, b, &len))) break;
    b += len;
  }
  size_t e = s.size();
  while (e > b) {
    size_t start = e - 1;
    while (start > b && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    size_t len;
    if (!IsUnicodeSpace(RuneAt(s, start, &len))) break;
    e = start;
  }
  return Value::OwnedString(std::string(s.substr(b, e - b)));
}

R Join(const CallContext& ctx, Args a) {
  std::string_view sep = a.size() > 1 ? a[1].string_value() : std::string_view();
  uint64_t total = 0;
  for (const Value& v : a[0].list()) {
    if (v.kind() == ValueKind::kString) total = SatAdd(total, v.string_value().size() + sep.size());
  }
  ALLOT_RETURN_IF_ERROR(ChargeOutput(ctx, total));
  std::string out;
  bool first = true;
  for (const Value& v : a[0].list()) {
    if (v.kind() != ValueKind::kString) return NoSuchOverload();
    if (!first) out.append(sep);
    out.append(v.string_value());
    first = false;
  }
  return Value::OwnedString(std::move(out));
}

}  // namespace

void RegisterStringFunctions(Library& lib) {
  TypePtr s = types::String(), i = types::Int(), b = types::Bool();
  Reg(lib, "contains", "contains_string", {s, s}, b, Contains, CostModel::kStringScan);
  Reg(lib, "startsWith", "starts_with_string", {s, s}, b, StartsWith, CostModel::kStringScan);
  Reg(lib, "endsWith", "ends_with_string", {s, s}, b, EndsWith, CostModel::kStringScan);
  Reg(lib, "matches", "matches_string", {s, s}, b, Matches, CostModel::kRegex);
  Reg(lib, "matches", "matches", {s, s}, b, Matches, CostModel::kRegex, /*member=*/false);
  Reg(lib, "find", "string_find_string", {s, s}, s, Find, CostModel::kRegex);
  Reg(lib, "findAll", "string_find_all_string", {s, s}, types::List(s), FindAll, CostModel::kRegex);
  Reg(lib, "findAll", "string_find_all_string_int", {s, s, i}, types::List(s), FindAll,
      CostModel::kRegex);
  Reg(lib, "charAt", "string_char_at_int", {s, i}, s, CharAt, CostModel::kStringScan);
  Reg(lib, "indexOf", "string_index_of_string", {s, s}, i, IndexOf, CostModel::kStringScan);
  Reg(lib, "indexOf", "string_index_of_string_int", {s, s, i}, i, IndexOf, CostModel::kStringScan);
  Reg(lib, "lastIndexOf", "string_last_index_of_string", {s, s}, i, LastIndexOf,
      CostModel::kStringScan);
  Reg(lib, "lastIndexOf", "string_last_index_of_string_int", {s, s, i}, i, LastIndexOf,
      CostModel::kStringScan);
  Reg(lib, "lowerAscii", "string_lower_ascii", {s}, s, LowerAscii, CostModel::kStringScan);
  Reg(lib, "upperAscii", "string_upper_ascii", {s}, s, UpperAscii, CostModel::kStringScan);
  Reg(lib, "replace", "string_replace_string_string", {s, s, s}, s, Replace, CostModel::kLinear);
  Reg(lib, "replace", "string_replace_string_string_int", {s, s, s, i}, s, Replace,
      CostModel::kLinear);
  Reg(lib, "split", "string_split_string", {s, s}, types::List(s), Split, CostModel::kLinear);
  Reg(lib, "split", "string_split_string_int", {s, s, i}, types::List(s), Split,
      CostModel::kLinear);
  Reg(lib, "substring", "string_substring_int", {s, i}, s, Substring, CostModel::kStringScan);
  Reg(lib, "substring", "string_substring_int_int", {s, i, i}, s, Substring,
      CostModel::kStringScan);
  Reg(lib, "trim", "string_trim", {s}, s, Trim, CostModel::kStringScan);
  Reg(lib, "join", "list_join", {types::List(s)}, s, Join, CostModel::kLinear);
  Reg(lib, "join", "list_join_string", {types::List(s), s}, s, Join, CostModel::kLinear);
}

}  // namespace allot::cel

// YAML to JSON. yaml-cpp parses (through its event API, so we see tags, anchors and marks);
// the conversion below applies go-yaml v2's decoding rules and sigs.k8s.io/yaml's JSON mapping.
#include "api/codec/yaml.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "api/codec/yaml_scalar.h"
#include "api/machinery/go_format.h"
#include "common/base64.h"
#include "common/utf8.h"

namespace allot::api {
namespace {

using yaml_internal::Scalar;

constexpr int kMaxDepth = 1000;

// A problem found while building or converting the tree; becomes a 400.
struct YamlProblem {
  std::string message;  // "yaml: ..." or "json: ..."
};

Status ConversionError(std::string detail) {
  return BadRequestError("error converting YAML to JSON: " + detail);
}

// --- input check (go-yaml's reader) -----------------------------------------------------------

// The reader's complaint about `s`, if any: invalid UTF-8 or a non-printable character.
std::optional<std::string> CheckInput(std::string_view s) {
  if (s.size() >= 2 && ((s[0] == '\xFE' && s[1] == '\xFF') || (s[0] == '\xFF' && s[1] == '\xFE'))) {
    return std::nullopt;  // UTF-16: yaml-cpp decodes it
  }
  for (size_t i = 0; i < s.size();) {
    const utf8::Rune r = utf8::Decode(s, i);
    switch (r.error) {
      case utf8::Error::kNone:
        break;
      case utf8::Error::kInvalidLeading:
        return "yaml: invalid leading UTF-8 octet";
      case utf8::Error::kIncomplete:
        return "yaml: incomplete UTF-8 octet sequence";
      case utf8::Error::kInvalidTrailing:
        return "yaml: invalid trailing UTF-8 octet";
      case utf8::Error::kOverlong:
        return "yaml: invalid length of a UTF-8 sequence";
      case utf8::Error::kInvalidCodePoint:
        return "yaml: invalid Unicode character";
    }
    const char32_t value = r.value;
    bool printable = value == 0x09 || value == 0x0A || value == 0x0D ||
                     (value >= 0x20 && value <= 0x7E) || value == 0x85 ||
                     (value >= 0xA0 && value <= 0xD7FF) || (value >= 0xE000 && value <= 0xFFFD) ||
                     value >= 0x10000;
    if (!printable) return "yaml: control characters are not allowed";
    i += r.width;
  }
  return std::nullopt;
}

// yaml-cpp's wording of the common problems, in go-yaml's words.
std::string GoYamlProblem(const std::string& msg) {
  static const std::unordered_map<std::string, std::string> kGoWords = {
      {YAML::ErrorMsg::MAP_VALUE, "mapping values are not allowed in this context"},
      {YAML::ErrorMsg::BLOCK_ENTRY, "block sequence entries are not allowed in this context"},
      {YAML::ErrorMsg::END_OF_MAP, "did not find expected key"},
      {YAML::ErrorMsg::END_OF_SEQ, "did not find expected '-' indicator"},
      {YAML::ErrorMsg::END_OF_MAP_FLOW, "did not find expected ',' or '}'"},
      {YAML::ErrorMsg::END_OF_SEQ_FLOW, "did not find expected ',' or ']'"},
      {YAML::ErrorMsg::TAB_IN_INDENTATION, "found character that cannot start any token"},
      {YAML::ErrorMsg::UNKNOWN_TOKEN, "found character that cannot start any token"},
      {YAML::ErrorMsg::EOF_IN_SCALAR, "found unexpected end of stream"},
      {YAML::ErrorMsg::UNKNOWN_ANCHOR, "unknown anchor referenced"},
  };
  auto it = kGoWords.find(msg);
  return it == kGoWords.end() ? msg : it->second;
}

std::string DescribeParserError(const YAML::Exception& e) {
  std::string problem = GoYamlProblem(e.msg);
  if (e.mark.is_null()) return "yaml: " + problem;
  return "yaml: line " + std::to_string(e.mark.line + 1) + ": " + problem;
}

// --- the document tree ------------------------------------------------------------------------

struct YNode {
  enum class Kind : uint8_t { kNull, kScalar, kSequence, kMapping, kAlias };
  Kind kind = Kind::kNull;
  std::string tag;                 // yaml-cpp: "?" plain, "!" quoted/block, else the resolved tag
  std::string value;               // scalars
  std::vector<uint32_t> children;  // sequence items; mapping key, value, key, value, ...
  uint32_t target = 0;             // aliases
  std::string anchor;              // the &name this node defines, for messages
};

// Builds one document's nodes from yaml-cpp's events. Aliases point at earlier nodes; an alias
// to a node that is still open (its own ancestor) is rejected here, so the tree is acyclic.
class TreeBuilder : public YAML::EventHandler {
 public:
  std::vector<YNode> nodes;
  std::optional<uint32_t> root;
  YAML::Mark start;  // where the document began

  void OnDocumentStart(const YAML::Mark& mark) override {
    start = mark;
    nodes.clear();
    root.reset();
    anchors_.clear();
    open_.clear();
    stack_.clear();
    pending_anchor_.clear();
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override {
    Add(YNode::Kind::kNull, "", "", anchor);
  }

  void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw YamlProblem{"yaml: unknown anchor referenced"};
    if (open_[it->second]) {
      throw YamlProblem{"yaml: anchor '" + nodes[it->second].anchor + "' value contains itself"};
    }
    uint32_t idx = Add(YNode::Kind::kAlias, "", "", YAML::NullAnchor);
    nodes[idx].target = it->second;
  }

  void OnScalar(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    Add(YNode::Kind::kScalar, tag, RepairEscapes(value), anchor);
  }

  // yaml-cpp decodes the double-quoted escapes \N (U+0085) and \_ (U+00A0) to the single bytes
  // 0x85 and 0xA0 instead of their UTF-8 encodings. The input was checked to be UTF-8, so a lone
  // such byte can only come from those escapes: encode it as the character it stands for.
  static std::string RepairEscapes(const std::string& value) {
    std::string out;
    bool repaired = false;
    for (size_t i = 0; i < value.size();) {
      const unsigned char c = static_cast<unsigned char>(value[i]);
      size_t width = 1;
      if (c >= 0x80) {
        const utf8::Rune r = utf8::Decode(value, i);
        if (r.error != utf8::Error::kNone && (c == 0x85 || c == 0xA0)) {
          if (!repaired) out.assign(value, 0, i);
          repaired = true;
          out += '\xC2';
          out += static_cast<char>(c);
          ++i;
          continue;
        }
        if (r.error == utf8::Error::kNone) width = r.width;
      }
      if (repaired) out.append(value, i, width);
      i += width;
    }
    return repaired ? out : value;
  }

  void OnSequenceStart(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(Add(YNode::Kind::kSequence, tag, "", anchor));
  }
  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(Add(YNode::Kind::kMapping, tag, "", anchor));
  }
  void OnMapEnd() override { Close(); }

  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_anchor_ = name; }

 private:
  uint32_t Add(YNode::Kind kind, const std::string& tag, const std::string& value,
               YAML::anchor_t anchor) {
    uint32_t idx = static_cast<uint32_t>(nodes.size());
    YNode n;
    n.kind = kind;
    n.tag = tag;
    n.value = value;
    if (anchor != YAML::NullAnchor) {
      anchors_[anchor] = idx;
      n.anchor = pending_anchor_;
    }
    pending_anchor_.clear();
    nodes.push_back(std::move(n));
    open_.push_back(false);
    if (stack_.empty()) {
      root = idx;
    } else {
      nodes[stack_.back()].children.push_back(idx);
    }
    return idx;
  }

  void Open(uint32_t idx) {
    if (stack_.size() >= kMaxDepth) {
      throw YamlProblem{"yaml: exceeded max depth of " + std::to_string(kMaxDepth)};
    }
    open_[idx] = true;
    stack_.push_back(idx);
  }

  void Close() {
    if (stack_.empty()) return;
    open_[stack_.back()] = false;
    stack_.pop_back();
  }

  std::unordered_map<YAML::anchor_t, uint32_t> anchors_;
  std::vector<bool> open_;
  std::vector<uint32_t> stack_;
  std::string pending_anchor_;
};

// --- JSON output ------------------------------------------------------------------------------

// A JSON string literal as Go's encoding/json writes one: invalid UTF-8 becomes U+FFFD and
// U+2028/U+2029 are escaped (HTML escaping of <, >, & is left out; it does not change the value).
void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c < 0x20) {
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const utf8::Rune r = utf8::Decode(s, i);
    const bool valid = r.error == utf8::Error::kNone;
    const char32_t value = r.value;
    const size_t width = r.width;
    if (!valid) {
      out += "\\ufffd";
      ++i;
    } else if (value == 0x2028 || value == 0x2029) {
      out += value == 0x2028 ? "\\u2028" : "\\u2029";
      i += width;
    } else {
      out.append(s.substr(i, width));
      i += width;
    }
  }
  out += '"';
}

// go-yaml: allowedAliasRatio.
double AllowedAliasRatio(long decodes) {
  constexpr double kLow = 400000, kHigh = 4000000;
  if (decodes <= kLow) return 0.99;
  if (decodes >= kHigh) return 0.10;
  return 0.99 - 0.89 * ((decodes - kLow) / (kHigh - kLow));
}

// Converts one document tree to JSON with go-yaml's decoding rules.
class Converter {
 public:
  explicit Converter(const std::vector<YNode>& nodes) : nodes_(nodes) {}

  Status Write(uint32_t idx, std::string& out, int depth) {
    ALLOT_RETURN_IF_ERROR(Count());
    if (depth > kMaxDepth) {
      return ConversionError("yaml: exceeded max depth of " + std::to_string(kMaxDepth));
    }
    const YNode& n = nodes_[idx];
    switch (n.kind) {
      case YNode::Kind::kNull:
        out += "null";
        return Status::Ok();
      case YNode::Kind::kScalar:
        return WriteScalar(n, out);
      case YNode::Kind::kAlias: {
        ++alias_depth_;
        Status st = Write(n.target, out, depth + 1);
        --alias_depth_;
        return st;
      }
      case YNode::Kind::kSequence:
        return WriteSequence(n, out, depth);
      case YNode::Kind::kMapping:
        return WriteMapping(idx, out, depth);
    }
    return Status::Ok();
  }

 private:
  // A map entry: the value node, and whether it was reached through an alias (go-yaml counts
  // decodes under an alias toward the aliasing ratio).
  struct Entry {
    uint32_t value;
    bool via_alias;
  };
  using Entries = std::map<std::string, Entry>;  // sorted, as Go's json.Marshal sorts map keys

  // go-yaml: every decoded node counts; too large a share through aliases is an error.
  Status Count() {
    ++decodes_;
    if (alias_depth_ > 0) ++alias_decodes_;
    if (alias_decodes_ > 100 && decodes_ > 1000 &&
        static_cast<double>(alias_decodes_) / static_cast<double>(decodes_) >
            AllowedAliasRatio(decodes_)) {
      return ConversionError("yaml: document contains excessive aliasing");
    }
    return Status::Ok();
  }

  Result<Scalar> ResolveNode(const YNode& n, std::string* text) {
    *text = n.value;
    if (n.tag == "?") return yaml_internal::Resolve("", n.value);
    std::string_view tag = n.tag;
    if (tag.substr(0, yaml_internal::kLongTagPrefix.size()) == yaml_internal::kLongTagPrefix) {
      std::string_view suffix = tag.substr(yaml_internal::kLongTagPrefix.size());
      if (suffix == "binary") {
        std::optional<std::string> bytes = Base64Decode(n.value);
        if (!bytes) return ConversionError("yaml: !!binary value contains invalid base64 data");
        *text = std::move(*bytes);
        return Scalar();
      }
      if (suffix == "str" || suffix == "bool" || suffix == "int" || suffix == "float" ||
          suffix == "null" || suffix == "timestamp") {
        Result<Scalar> r = yaml_internal::Resolve(n.tag, n.value);
        if (!r.ok()) return ConversionError(r.status().message());
        return r;
      }
    }
    return Scalar();  // "!" (quoted, block) and unknown tags: the text
  }

  Status WriteScalar(const YNode& n, std::string& out) {
    std::string text;
    ALLOT_ASSIGN_OR_RETURN(Scalar s, ResolveNode(n, &text));
    switch (s.kind) {
      case Scalar::Kind::kNull:
        out += "null";
        break;
      case Scalar::Kind::kBool:
        out += s.b ? "true" : "false";
        break;
      case Scalar::Kind::kInt:
        out += std::to_string(s.i);
        break;
      case Scalar::Kind::kUint:
        out += std::to_string(s.u);
        break;
      case Scalar::Kind::kFloat:
        if (!std::isfinite(s.f)) {
          return ConversionError("json: unsupported value: " + gofmt::FormatFloat(s.f, 'g', 64));
        }
        out += gofmt::JsonFloat(s.f);
        break;
      case Scalar::Kind::kString:
      case Scalar::Kind::kTimestamp:
      case Scalar::Kind::kMerge:
        AppendJsonString(out, text);
        break;
    }
    return Status::Ok();
  }

  Status WriteSequence(const YNode& n, std::string& out, int depth) {
    out += '[';
    for (size_t i = 0; i < n.children.size(); ++i) {
      if (i) out += ',';
      ALLOT_RETURN_IF_ERROR(Write(n.children[i], out, depth + 1));
    }
    out += ']';
    return Status::Ok();
  }

  Status WriteMapping(uint32_t idx, std::string& out, int depth) {
    Entries entries;
    ALLOT_RETURN_IF_ERROR(CollectEntries(idx, entries, depth));
    out += '{';
    bool first = true;
    for (const auto& [key, entry] : entries) {
      if (!first) out += ',';
      first = false;
      AppendJsonString(out, key);
      out += ':';
      bool bump = entry.via_alias && alias_depth_ == 0;
      if (bump) ++alias_depth_;
      Status st = Write(entry.value, out, depth + 1);
      if (bump) --alias_depth_;
      ALLOT_RETURN_IF_ERROR(st);
    }
    out += '}';
    return Status::Ok();
  }

  bool IsMergeKey(const YNode& k) const {
    return k.kind == YNode::Kind::kScalar && k.value == "<<" &&
           (k.tag == "?" || k.tag == std::string(yaml_internal::kLongTagPrefix) + "merge");
  }

  Status CollectEntries(uint32_t idx, Entries& entries, int depth) {
    const YNode& n = nodes_[idx];
    for (size_t i = 0; i + 1 < n.children.size(); i += 2) {
      const YNode& key = nodes_[n.children[i]];
      if (IsMergeKey(key)) {
        ALLOT_RETURN_IF_ERROR(Merge(n.children[i + 1], entries, depth + 1));
        continue;
      }
      ALLOT_ASSIGN_OR_RETURN(std::string name, KeyString(n.children[i]));
      entries[std::move(name)] = Entry{n.children[i + 1], alias_depth_ > 0};
    }
    return Status::Ok();
  }

  // go-yaml: merge. The value of "<<" is a map, an alias to one, or a sequence of those (earlier
  // ones win).
  Status Merge(uint32_t idx, Entries& entries, int depth) {
    if (depth > kMaxDepth) {
      return ConversionError("yaml: exceeded max depth of " + std::to_string(kMaxDepth));
    }
    const YNode& n = nodes_[idx];
    if (n.kind == YNode::Kind::kSequence) {
      for (size_t i = n.children.size(); i-- > 0;) {
        const YNode& c = nodes_[n.children[i]];
        if (c.kind != YNode::Kind::kMapping && c.kind != YNode::Kind::kAlias) return WantMap();
        ALLOT_RETURN_IF_ERROR(MergeOne(n.children[i], entries, depth));
      }
      return Status::Ok();
    }
    return MergeOne(idx, entries, depth);
  }

  Status MergeOne(uint32_t idx, Entries& entries, int depth) {
    ALLOT_RETURN_IF_ERROR(Count());
    const YNode& n = nodes_[idx];
    if (n.kind == YNode::Kind::kMapping) return CollectEntries(idx, entries, depth);
    if (n.kind != YNode::Kind::kAlias || nodes_[n.target].kind != YNode::Kind::kMapping) {
      return WantMap();
    }
    ++alias_depth_;
    Status st = Count();
    if (st.ok()) st = CollectEntries(n.target, entries, depth);
    --alias_depth_;
    return st;
  }

  static Status WantMap() {
    return ConversionError("yaml: map merge requires map or sequence of maps as the value");
  }

  // sigs.k8s.io/yaml: map keys to strings.
  Result<std::string> KeyString(uint32_t idx) {
    ALLOT_RETURN_IF_ERROR(Count());
    const YNode* n = &nodes_[idx];
    if (n->kind == YNode::Kind::kAlias) {
      ALLOT_RETURN_IF_ERROR(Count());
      n = &nodes_[n->target];
    }
    if (n->kind == YNode::Kind::kSequence || n->kind == YNode::Kind::kMapping) {
      return ConversionError(
          std::string("yaml: invalid map key: ") +
          (n->kind == YNode::Kind::kMapping ? "map[interface {}]interface {}" : "[]interface {}"));
    }
    std::string text;
    Scalar s;
    if (n->kind == YNode::Kind::kScalar) {
      ALLOT_ASSIGN_OR_RETURN(s, ResolveNode(*n, &text));
    } else {
      s.kind = Scalar::Kind::kNull;
    }
    switch (s.kind) {
      case Scalar::Kind::kNull:
        return ConversionError("unsupported map key of type: %!s(<nil>), key: <nil>");
      case Scalar::Kind::kBool:
        return std::string(s.b ? "true" : "false");
      case Scalar::Kind::kInt:
        return std::to_string(s.i);
      case Scalar::Kind::kUint:
        return ConversionError("unsupported map key of type: uint64, key: " + std::to_string(s.u));
      case Scalar::Kind::kFloat: {
        std::string f = gofmt::FormatFloat(s.f, 'g', 32);
        if (f == "+Inf") return std::string(".inf");
        if (f == "-Inf") return std::string("-.inf");
        if (f == "NaN") return std::string(".nan");
        return f;
      }
      default:
        return text;
    }
  }

  const std::vector<YNode>& nodes_;
  long decodes_ = 0;
  long alias_decodes_ = 0;
  int alias_depth_ = 0;
};

// Parses `yaml` and converts up to `limit` documents (0: all). Null documents are skipped
// unless `keep_null`. With a limit, text after the last converted document is not looked at
// (so junk after the first document is tolerated, where go-yaml would complain).
Result<std::vector<std::string>> Convert(std::string_view yaml, size_t limit, bool keep_null) {
  if (std::optional<std::string> problem = CheckInput(yaml)) return ConversionError(*problem);
  std::vector<std::string> docs;
  try {
    std::istringstream in{std::string(yaml)};
    YAML::Parser parser(in);
    TreeBuilder builder;
    int previous_start = -1;
    while (parser.HandleNextDocument(builder)) {
      // yaml-cpp 0.7 leaves a stray flow token (the "," in "[a],") unconsumed and reports an
      // empty document at the same place forever. Every real document consumes input.
      if (builder.start.pos == previous_start) {
        return ConversionError("yaml: line " + std::to_string(builder.start.line + 1) +
                               ": did not find expected node content");
      }
      previous_start = builder.start.pos;
      std::string out = "null";
      if (builder.root) {
        out.clear();
        Converter converter(builder.nodes);
        ALLOT_RETURN_IF_ERROR(converter.Write(*builder.root, out, 0));
      }
      if (keep_null || out != "null") docs.push_back(std::move(out));
      if (limit != 0 && docs.size() >= limit) break;
    }
  } catch (const YamlProblem& p) {
    return ConversionError(p.message);
  } catch (const YAML::Exception& e) {
    return ConversionError(DescribeParserError(e));
  } catch (const std::exception& e) {
    return ConversionError(std::string("yaml: ") + e.what());
  }
  return docs;
}

}  // namespace

Result<std::vector<std::string>> YamlToJson(std::string_view yaml) {
  return Convert(yaml, 0, /*keep_null=*/false);
}

Result<std::string> YamlDocumentToJson(std::string_view yaml) {
  ALLOT_ASSIGN_OR_RETURN(std::vector<std::string> docs, Convert(yaml, 1, /*keep_null=*/true));
  if (docs.empty()) return std::string("null");
  return std::move(docs[0]);
}

}  // namespace allot::api

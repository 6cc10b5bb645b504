// Label selectors, field selectors and node selector matching, with Kubernetes semantics
// (k8s.io/apimachinery/pkg/labels, pkg/fields, metav1.LabelSelectorAsSelector and
// k8s.io/component-helpers/scheduling/corev1/nodeaffinity).
//
//   ALLOT_ASSIGN_OR_RETURN(auto sel, LabelSelectorExpr::Parse("app=web,tier in (a,b),!canary"));
//   if (sel.Matches(pod.metadata.labels)) ...
//
// Errors carry Kubernetes' messages verbatim, e.g. Parse("a b") fails with
// "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt" and
// Parse("app:web") with `unable to parse requirement: <nil>: Invalid value: "app:web": name part
// must consist of ...`. The API server wraps them as it likes (400 BadRequest).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/meta.h"
#include "common/status.h"

namespace allot::api {

// One label requirement (labels.Requirement).
struct LabelRequirement {
  enum class Op : uint8_t {
    kIn,            // "in": key present and value in the set
    kNotIn,         // "notin": key absent or value not in the set
    kEquals,        // "=": as kIn with one value
    kDoubleEquals,  // "==": as kEquals
    kNotEquals,     // "!=": as kNotIn with one value
    kExists,        // "key"
    kDoesNotExist,  // "!key"
    kGreaterThan,   // "key>5": present, both sides integers, label > value
    kLessThan,      // "key<5"
  };
  std::string key;
  Op op = Op::kExists;
  // For set operators as given (Parse sorts and deduplicates them); exactly one value for
  // =, ==, !=, >, <; empty for exists / does-not-exist.
  std::vector<std::string> values;

  bool Matches(const StringMap& labels) const;
  // "key=v", "key!=v", "key in (a,b)" (values sorted), "key", "!key", "key>5".
  std::string ToString() const;
  bool operator==(const LabelRequirement&) const = default;

  // labels.NewRequirement: validates the key (qualified name), the value count for the operator,
  // integer values for Gt/Lt and every value as a label value. Errors are kBadRequest with
  // Kubernetes' field-error text; `path` is the field path prefix Kubernetes would use
  // ("" gives "key: ..." / "values[0][k]: ...").
  static Result<LabelRequirement> Make(std::string key, Op op, std::vector<std::string> values,
                                       std::string_view path = {});
};

// A parsed label selector: the AND of its requirements, sorted by key.
class LabelSelectorExpr {
 public:
  using Requirement = LabelRequirement;

  // Matches everything (labels.Everything()).
  LabelSelectorExpr() = default;
  static LabelSelectorExpr Everything() { return LabelSelectorExpr(); }
  // Matches nothing (labels.Nothing()): Empty() is false and ToString() is "".
  static LabelSelectorExpr Nothing();
  // The `?labelSelector=` syntax (labels.Parse). "" is Everything().
  static Result<LabelSelectorExpr> Parse(std::string_view text);
  // metav1.LabelSelectorAsSelector: matchLabels as "=", matchExpressions In / NotIn / Exists /
  // DoesNotExist. An empty selector is Everything(); an unknown operator fails with
  // `"Foo" is not a valid label selector operator`.
  static Result<LabelSelectorExpr> FromLabelSelector(const LabelSelector& selector);
  // labels.SelectorFromSet: key=value for every entry, unvalidated. An empty map is Everything().
  static LabelSelectorExpr FromSet(const StringMap& labels);

  bool Matches(const StringMap& labels) const;
  // True when the selector does not restrict anything (no requirements and not Nothing()).
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  // Kubernetes' String(): requirements joined by ",". Parse(ToString()) round-trips.
  std::string ToString() const;
  // RequiresExactMatch: the value when the first requirement on `key` is =, == or a one-value
  // in.
  std::optional<std::string> ExactMatch(std::string_view key) const;
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<LabelRequirement> requirements_;
  bool nothing_ = false;
};

// One field requirement: `field=value` / `field==value` (kEquals) or `field!=value`.
struct FieldRequirement {
  enum class Op : uint8_t { kEquals, kNotEquals };
  std::string field;
  Op op = Op::kEquals;
  std::string value;  // unescaped
  bool operator==(const FieldRequirement&) const = default;
};

// A parsed field selector (fields.ParseSelector): the AND of its requirements, in the order of
// the sorted raw terms.
class FieldSelectorExpr {
 public:
  using Requirement = FieldRequirement;
  // Returns a field's value, or nullopt when the object has no such field.
  using FieldLookup = std::function<std::optional<std::string>(std::string_view field)>;

  FieldSelectorExpr() = default;  // matches everything
  // "metadata.name=x,spec.nodeName!=y,status.phase==Running"; values may escape `\,` `\=` `\\`.
  // Terms are split on unescaped commas; empty terms are ignored; the first "!=", "==" or "="
  // splits a term (field names cannot be escaped). Errors (kBadRequest):
  //   "invalid selector: 'a'; can't understand 'a'"
  //   "invalid field selector: invalid escape sequence: \x"
  //   "invalid field selector: unescaped character in value: 61" (the rune as a number, as Go
  //   prints it)
  // Field names are not checked here: callers check requirements() against the fields the
  // resource supports and fail with `field label not supported: <field>`.
  static Result<FieldSelectorExpr> Parse(std::string_view text);
  // fields.OneTermEqualSelector.
  static FieldSelectorExpr OneTermEqual(std::string field, std::string value);

  // All requirements hold. A requirement on a field the lookup does not know (nullopt) does not
  // hold, whatever its operator.
  bool Matches(const FieldLookup& lookup) const;
  bool Empty() const { return requirements_.empty(); }
  // "f=v,g!=w" with values escaped again (fields.EscapeValue).
  std::string ToString() const;
  // The value of the first `field=value` / `field==value` requirement on `field`.
  std::optional<std::string> ExactMatch(std::string_view field) const;
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<FieldRequirement> requirements_;
};

// fields.EscapeValue: `\` -> `\\`, `,` -> `\,`, `=` -> `\=`.
std::string EscapeFieldSelectorValue(std::string_view value);

// core/v1 node selector term (required node affinity). Requirements within the term are ANDed.
// matchExpressions use label selector semantics with operators In, NotIn, Exists, DoesNotExist,
// Gt, Lt (integers); matchFields support In / NotIn with exactly one value on `metadata.name`
// (any other field reads as ""; matchFields are skipped when node_name is empty, as Kubernetes
// does). A term with neither list, or with an invalid requirement (unknown operator, bad key or
// value, wrong value count), matches nothing.
bool MatchesNodeSelectorTerm(const NodeSelectorTerm& term, const StringMap& node_labels,
                             std::string_view node_name);
// Terms are ORed; no terms matches nothing.
bool MatchesNodeSelector(const NodeSelector& selector, const StringMap& node_labels,
                         std::string_view node_name);

}  // namespace allot::api

#include "api/machinery/meta_validation.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/names.h"

namespace allot::api {
namespace {

constexpr std::string_view kIsNegativeErrorMsg = "must be greater than or equal to 0";
constexpr std::string_view kFieldImmutableErrorMsg = "field is immutable";

// apimachinery maskTrailingDash: a generateName prefix may end in '-'; Kubernetes replaces the
// last two characters with "a" before checking (sic: two, not one).
std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return std::string(name.substr(0, name.size() - 2)) + "a";
  }
  return std::string(name);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// "The version of an apiVersion": "" for "", "g/" or more than one '/'
// (schema.FromAPIVersionAndKind falls back to an empty GroupVersion on parse errors).
std::string_view VersionOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) return api_version;
  if (api_version.find('/', slash + 1) != std::string_view::npos) return {};
  return api_version.substr(slash + 1);
}

bool IsStandardFinalizerName(std::string_view name) {
  return name == "kubernetes" || name == "orphan" || name == "foregroundDeletion";
}

// Go's %#v of a []string: []string{"a", "b"}.
std::string GoStringSlice(const std::set<std::string>& values) {
  std::string out = "[]string{";
  bool first = true;
  for (const std::string& v : values) {
    if (!first) out += ", ";
    first = false;
    out += Quote(v);
  }
  return out + "}";
}

void AddEach(const std::vector<std::string>& msgs, std::string_view value, const Path& path,
             FieldErrors& errs) {
  for (const std::string& m : msgs) errs.Invalid(path, value, m);
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace

// --- names ------------------------------------------------------------------------------------

std::vector<std::string> NameIsDnsSubdomain(std::string_view name, bool prefix) {
  return prefix ? DnsSubdomainErrors(MaskTrailingDash(name)) : DnsSubdomainErrors(name);
}

std::vector<std::string> NameIsDnsLabel(std::string_view name, bool prefix) {
  return prefix ? DnsLabelErrors(MaskTrailingDash(name)) : DnsLabelErrors(name);
}

std::vector<std::string> NameIsPathSegment(std::string_view name, bool prefix) {
  if (!prefix) {
    if (name == ".") return {"may not be '.'"};
    if (name == "..") return {"may not be '..'"};
  }
  std::vector<std::string> out;
  if (name.find('/') != std::string_view::npos) out.push_back("may not contain '/'");
  if (name.find('%') != std::string_view::npos) out.push_back("may not contain '%'");
  return out;
}

void ValidateDnsLabel(std::string_view value, const Path& path, FieldErrors& errs) {
  AddEach(DnsLabelErrors(value), value, path, errs);
}

void ValidateDnsSubdomain(std::string_view value, const Path& path, FieldErrors& errs) {
  AddEach(DnsSubdomainErrors(value), value, path, errs);
}

void ValidateNonnegative(int64_t value, const Path& path, FieldErrors& errs) {
  if (value < 0) errs.InvalidInt(path, value, kIsNegativeErrorMsg);
}

// --- labels and annotations -------------------------------------------------------------------

void ValidateLabelName(std::string_view name, const Path& path, FieldErrors& errs) {
  AddEach(QualifiedNameErrors(name), name, path, errs);
}

void ValidateLabelValue(std::string_view value, const Path& path, FieldErrors& errs) {
  AddEach(LabelValueErrors(value), value, path, errs);
}

void ValidateLabels(const StringMap& labels, const Path& path, FieldErrors& errs) {
  for (const auto& [k, v] : labels) {
    ValidateLabelName(k, path, errs);
    ValidateLabelValue(v, path, errs);
  }
}

void ValidateAnnotations(const StringMap& annotations, const Path& path, FieldErrors& errs) {
  int64_t total = 0;
  for (const auto& [k, v] : annotations) {
    AddEach(QualifiedNameErrors(Lower(k)), k, path, errs);
    total += static_cast<int64_t>(k.size() + v.size());
  }
  if (total > kTotalAnnotationSizeLimitBytes) errs.TooLong(path, kTotalAnnotationSizeLimitBytes);
}

// --- owner references and finalizers ----------------------------------------------------------

void ValidateOwnerReferences(const std::vector<OwnerReference>& refs, const Path& path,
                             FieldErrors& errs) {
  std::string first_controller;
  for (const OwnerReference& ref : refs) {
    std::string_view version = VersionOf(ref.apiVersion);
    if (version.empty()) {
      errs.Invalid(path.Child("apiVersion"), ref.apiVersion, "version must not be empty");
    }
    if (ref.kind.empty()) errs.Invalid(path.Child("kind"), ref.kind, "must not be empty");
    if (ref.name.empty()) errs.Invalid(path.Child("name"), ref.name, "must not be empty");
    if (ref.uid.empty()) errs.Invalid(path.Child("uid"), ref.uid, "must not be empty");
    if (ref.apiVersion == "v1" && ref.kind == "Event") {
      // Kubernetes prints the whole reference as a Go struct here; we print the name.
      errs.Invalid(path, ref.name, "/v1, Kind=Event is disallowed from being an owner");
    }
    if (ref.controller.value_or(false)) {
      std::string current = ref.kind + "/" + ref.name;
      if (first_controller.empty()) {
        first_controller = current;
      } else {
        errs.Invalid(path, current,
                     "Only one reference can have Controller set to true. Found \"true\" in "
                     "references for " +
                         first_controller + " and " + current);
      }
    }
  }
}

void ValidateFinalizers(const std::vector<InternedString>& finalizers, const Path& path,
                        FieldErrors& errs) {
  bool orphan = false;
  bool foreground = false;
  for (const std::string& f : finalizers) {
    ValidateLabelName(f, path, errs);  // apimachinery: reported on the list itself
    orphan = orphan || f == "orphan";
    foreground = foreground || f == "foregroundDeletion";
  }
  if (orphan && foreground) {
    errs.Invalid(path, "", "finalizer orphan and foregroundDeletion cannot be both set");
  }
  // pkg/apis/core/validation adds per-item checks on top (the qualified-name errors repeat).
  for (size_t i = 0; i < finalizers.size(); ++i) {
    const std::string& f = finalizers[i];
    ValidateLabelName(f, path.Index(i), errs);
    if (f.find('/') == std::string::npos && !IsStandardFinalizerName(f)) {
      errs.Invalid(path.Index(i), f,
                   "name is neither a standard finalizer name nor is it fully qualified");
    }
  }
}

// --- ObjectMeta -------------------------------------------------------------------------------

void ValidateObjectMeta(const ObjectMeta& meta, bool namespaced, NameValidator name_fn,
                        FieldErrors& errs, const Path& path) {
  if (!meta.generateName.empty()) {
    AddEach(name_fn(meta.generateName, true), meta.generateName, path.Child("generateName"), errs);
  }
  if (meta.name.empty()) {
    errs.Required(path.Child("name"), "name or generateName is required");
  } else {
    AddEach(name_fn(meta.name, false), meta.name, path.Child("name"), errs);
  }
  if (namespaced) {
    if (meta.namespace_.empty()) {
      errs.Required(path.Child("namespace"));
    } else {
      AddEach(DnsLabelErrors(meta.namespace_), meta.namespace_, path.Child("namespace"), errs);
    }
  } else if (!meta.namespace_.empty()) {
    errs.Forbidden(path.Child("namespace"), "not allowed on this type");
  }
  ValidateNonnegative(meta.generation, path.Child("generation"), errs);
  ValidateLabels(meta.labels, path.Child("labels"), errs);
  ValidateAnnotations(meta.annotations, path.Child("annotations"), errs);
  ValidateOwnerReferences(meta.ownerReferences, path.Child("ownerReferences"), errs);
  ValidateFinalizers(meta.finalizers, path.Child("finalizers"), errs);
}

void ValidateObjectMetaUpdate(const ObjectMeta& meta, const ObjectMeta& old, FieldErrors& errs,
                              const Path& path) {
  if (old.rare->deletionTimestamp) {
    std::set<std::string> extra(meta.finalizers.begin(), meta.finalizers.end());
    for (const std::string& f : old.finalizers) extra.erase(f);
    if (!extra.empty()) {
      errs.Forbidden(path.Child("finalizers"),
                     "no new finalizers can be added if the object is being deleted, found new "
                     "finalizers " +
                         GoStringSlice(extra));
    }
  }
  if (meta.generation < old.generation) {
    errs.InvalidInt(path.Child("generation"), meta.generation, "must not be decremented");
  }
  auto immutable = [&](bool same, std::string_view field, std::string_view value) {
    if (!same) errs.Invalid(path.Child(field), value, kFieldImmutableErrorMsg);
  };
  auto time_text = [](const std::optional<Time>& t) {
    return t ? t->ToRfc3339() : std::string("null");
  };
  immutable(meta.name == old.name, "name", meta.name);
  immutable(meta.namespace_ == old.namespace_, "namespace", meta.namespace_);
  immutable(meta.uid == old.uid, "uid", meta.uid);
  immutable(meta.creationTimestamp == old.creationTimestamp, "creationTimestamp",
            time_text(meta.creationTimestamp));
  immutable(meta.rare->deletionTimestamp == old.rare->deletionTimestamp, "deletionTimestamp",
            time_text(meta.rare->deletionTimestamp));
  if (meta.rare->deletionGracePeriodSeconds != old.rare->deletionGracePeriodSeconds) {
    Path p = path.Child("deletionGracePeriodSeconds");
    if (meta.rare->deletionGracePeriodSeconds) {
      errs.InvalidInt(p, *meta.rare->deletionGracePeriodSeconds, kFieldImmutableErrorMsg);
    } else {
      errs.Invalid(p, "null", kFieldImmutableErrorMsg);
    }
  }
  ValidateLabels(meta.labels, path.Child("labels"), errs);
  ValidateAnnotations(meta.annotations, path.Child("annotations"), errs);
  ValidateOwnerReferences(meta.ownerReferences, path.Child("ownerReferences"), errs);
  ValidateFinalizers(meta.finalizers, path.Child("finalizers"), errs);
}

// --- selectors --------------------------------------------------------------------------------

void ValidateLabelSelector(const LabelSelector& selector, const Path& path, FieldErrors& errs) {
  ValidateLabels(selector.matchLabels, path.Child("matchLabels"), errs);
  for (size_t i = 0; i < selector.matchExpressions.size(); ++i) {
    const LabelSelectorRequirement& r = selector.matchExpressions[i];
    Path rp = path.Child("matchExpressions").Index(i);
    if (r.operator_ == "In" || r.operator_ == "NotIn") {
      if (r.values.empty()) {
        errs.Required(rp.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'");
      }
    } else if (r.operator_ == "Exists" || r.operator_ == "DoesNotExist") {
      if (!r.values.empty()) {
        errs.Forbidden(rp.Child("values"),
                       "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      }
    } else {
      errs.Invalid(rp.Child("operator"), r.operator_, "not a valid selector operator");
    }
    ValidateLabelName(r.key, rp.Child("key"), errs);
    for (size_t j = 0; j < r.values.size(); ++j) {
      ValidateLabelValue(r.values[j], rp.Child("values").Index(j), errs);
    }
  }
}

namespace {

void ValidateNodeSelectorRequirement(const NodeSelectorRequirement& r, bool allow_invalid_values,
                                     const Path& path, FieldErrors& errs) {
  const std::string& op = r.operator_;
  if (op == "In" || op == "NotIn") {
    if (r.values.empty()) {
      errs.Required(path.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'");
    }
    if (!allow_invalid_values) {
      for (size_t i = 0; i < r.values.size(); ++i) {
        ValidateLabelValue(r.values[i], path.Child("values").Index(i), errs);
      }
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!r.values.empty()) {
      errs.Forbidden(path.Child("values"),
                     "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    }
  } else if (op == "Gt" || op == "Lt") {
    if (r.values.size() != 1) {
      errs.Required(path.Child("values"),
                    "must be specified single value when `operator` is 'Lt' or 'Gt'");
    }
  } else {
    errs.Invalid(path.Child("operator"), op, "not a valid selector operator");
  }
  ValidateLabelName(r.key, path.Child("key"), errs);
}

void ValidateNodeFieldSelectorRequirement(const NodeSelectorRequirement& r, const Path& path,
                                          FieldErrors& errs) {
  if (r.operator_ == "In" || r.operator_ == "NotIn") {
    if (r.values.size() != 1) {
      errs.Required(path.Child("values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field "
                    "selector");
    }
  } else {
    errs.Invalid(path.Child("operator"), r.operator_, "not a valid selector operator");
  }
  if (r.key != "metadata.name") {
    errs.Invalid(path.Child("key"), r.key, "not a valid field selector key");
    return;
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    AddEach(NameIsDnsSubdomain(r.values[i], false), r.values[i], path.Child("values").Index(i),
            errs);
  }
}

}  // namespace

void ValidateNodeSelectorTerm(const NodeSelectorTerm& term, bool allow_invalid_label_values,
                              const Path& path, FieldErrors& errs) {
  for (size_t i = 0; i < term.matchExpressions.size(); ++i) {
    ValidateNodeSelectorRequirement(term.matchExpressions[i], allow_invalid_label_values,
                                    path.Child("matchExpressions").Index(i), errs);
  }
  for (size_t i = 0; i < term.matchFields.size(); ++i) {
    ValidateNodeFieldSelectorRequirement(term.matchFields[i], path.Child("matchFields").Index(i),
                                         errs);
  }
}

void ValidateNodeSelector(const NodeSelector& selector, bool allow_invalid_label_values,
                          const Path& path, FieldErrors& errs) {
  Path terms = path.Child("nodeSelectorTerms");
  if (selector.nodeSelectorTerms.empty()) {
    errs.Required(terms, "must have at least one node selector term");
    return;
  }
  for (size_t i = 0; i < selector.nodeSelectorTerms.size(); ++i) {
    ValidateNodeSelectorTerm(selector.nodeSelectorTerms[i], allow_invalid_label_values,
                             terms.Index(i), errs);
  }
}

// --- taints and tolerations -------------------------------------------------------------------

void ValidateTaintEffect(std::string_view effect, bool allow_empty, const Path& path,
                         FieldErrors& errs) {
  if (effect.empty() && !allow_empty) {
    errs.Required(path);
    return;
  }
  if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
    errs.NotSupported(path, effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"});
  }
}

void ValidateTolerations(const std::vector<Toleration>& tolerations, const Path& path,
                         FieldErrors& errs) {
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const Toleration& t = tolerations[i];
    Path ip = path.Index(i);
    if (!t.key.empty()) ValidateLabelName(t.key, ip.Child("key"), errs);
    if (t.key.empty() && t.operator_ != "Exists") {
      errs.Invalid(ip.Child("operator"), t.operator_,
                   "operator must be Exists when `key` is empty, which means \"match all values "
                   "and all keys\"");
    }
    if (t.tolerationSeconds && t.effect != "NoExecute") {
      errs.Invalid(ip.Child("effect"), t.effect,
                   "effect must be 'NoExecute' when `tolerationSeconds` is set");
    }
    if (t.operator_ == "Equal" || t.operator_.empty()) {
      std::vector<std::string> msgs = LabelValueErrors(t.value);
      if (!msgs.empty()) errs.Invalid(ip.Child("operator"), t.value, Join(msgs, ";"));
    } else if (t.operator_ == "Exists") {
      // Kubernetes prints the whole toleration as a Go struct; we print its value.
      if (!t.value.empty()) {
        errs.Invalid(ip.Child("operator"), t.value,
                     "value must be empty when `operator` is 'Exists'");
      }
    } else {
      errs.NotSupported(ip.Child("operator"), t.operator_, {"Equal", "Exists"});
    }
    if (!t.effect.empty()) ValidateTaintEffect(t.effect, true, ip.Child("effect"), errs);
  }
}

void ValidateTaints(const std::vector<Taint>& taints, const Path& path, FieldErrors& errs) {
  std::map<std::string, std::set<std::string>> seen;  // effect -> keys
  for (size_t i = 0; i < taints.size(); ++i) {
    const Taint& t = taints[i];
    Path ip = path.Index(i);
    ValidateLabelName(t.key, ip.Child("key"), errs);
    std::vector<std::string> msgs = LabelValueErrors(t.value);
    if (!msgs.empty()) errs.Invalid(ip.Child("value"), t.value, Join(msgs, ";"));
    ValidateTaintEffect(t.effect, false, ip.Child("effect"), errs);
    // Kubernetes: Duplicate value: <the taint as a Go struct>: taints must be unique by key and
    // effect pair. We print "key:effect".
    if (!seen[t.effect].insert(t.key).second) errs.Duplicate(ip, t.key + ":" + t.effect);
  }
}

}  // namespace allot::api

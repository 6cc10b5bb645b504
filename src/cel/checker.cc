#include "cel/checker.h"

#include <algorithm>

#include "cel/library.h"
#include "cel/regex.h"

namespace allot::cel {

namespace {

TypePtr DeviceFieldType(std::string_view field) {
  if (field == "driver") return types::String();
  if (field == "attributes")
    return types::Map(types::String(), types::Map(types::String(), types::Dyn()));
  if (field == "capacity") {
    return types::Map(types::String(), types::Map(types::String(), types::Quantity()));
  }
  if (field == "allowMultipleAllocations") return types::Bool();
  return nullptr;
}

// `int`, `string`, ... used as values denote types.
TypePtr TypeIdentifier(std::string_view name) {
  if (name == "int") return types::Int();
  if (name == "uint") return types::Uint();
  if (name == "double") return types::Double();
  if (name == "bool") return types::Bool();
  if (name == "string") return types::String();
  if (name == "bytes") return types::Bytes();
  if (name == "null_type") return types::Null();
  if (name == "list") return types::List(types::Dyn());
  if (name == "map") return types::Map(types::Dyn(), types::Dyn());
  if (name == "dyn") return types::Dyn();
  if (name == "type") return types::TypeOf(types::Dyn());
  return nullptr;
}

bool IsBoolish(const Type& t) { return t.kind == TypeKind::kBool || IsDynOrError(t); }

class Checker {
 public:
  explicit Checker(ErrorList& errors) : errors_(errors) {}

  int max_slots() const { return max_slots_; }

  TypePtr Check(Expr& e) {
    TypePtr t = CheckNode(e);
    e.type = t;
    return t;
  }

 private:
  TypePtr Error(Offset offset, std::string message) {
    errors_.Add(offset, std::move(message));
    return types::Error();
  }
  TypePtr Undeclared(Offset offset, std::string_view name) {
    return Error(offset, "undeclared reference to '" + std::string(name) + "' (in container '')");
  }

  TypePtr CheckNode(Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        return RuntimeType(e.constant);
      case ExprKind::kIdent:
        return CheckIdent(e);
      case ExprKind::kSelect:
        return CheckSelect(e);
      case ExprKind::kCall:
        return CheckCall(e);
      case ExprKind::kList:
        return CheckList(e);
      case ExprKind::kMap:
        return CheckMap(e);
      case ExprKind::kComprehension:
        return CheckComprehension(e);
      case ExprKind::kBind:
        return CheckBind(e);
    }
    return types::Dyn();
  }

  const std::pair<std::string, TypePtr>* FindLocal(std::string_view name, int* slot) const {
    for (size_t i = scopes_.size(); i-- > 0;) {
      if (scopes_[i].first == name) {
        *slot = static_cast<int>(i);
        return &scopes_[i];
      }
    }
    return nullptr;
  }

  TypePtr CheckIdent(Expr& e) {
    int slot = -1;
    if (const auto* local = FindLocal(e.name, &slot)) {
      e.ident_kind = IdentKind::kLocal;
      e.slot = slot;
      return local->second;
    }
    if (e.name == "device") {
      e.ident_kind = IdentKind::kDevice;
      return types::Device();
    }
    if (TypePtr t = TypeIdentifier(e.name)) {
      e.ident_kind = IdentKind::kTypeName;
      e.constant = Value::Type(t);
      return types::TypeOf(t);
    }
    return Undeclared(e.offset, e.name);
  }

  // The type of `.field` on a value of type `t` (not optional).
  TypePtr FieldType(const TypePtr& t, const std::string& field, Offset offset) {
    switch (t->kind) {
      case TypeKind::kDevice:
        if (TypePtr f = DeviceFieldType(field)) return f;
        return Error(offset, "undefined field '" + field + "'");
      case TypeKind::kMap:
        if (t->params[0]->kind == TypeKind::kString || IsDynOrError(*t->params[0])) {
          return t->params[1];
        }
        break;
      case TypeKind::kDyn:
        return types::Dyn();
      case TypeKind::kError:
        return types::Error();
      default:
        break;
    }
    return Error(offset, "type '" + TypeName(*t) + "' does not support field selection");
  }

  TypePtr CheckSelect(Expr& e) {
    TypePtr operand = Check(*e.args[0]);
    if (e.test_only) {
      TypePtr f = FieldType(operand, e.name, e.offset);
      return f->kind == TypeKind::kError && operand->kind != TypeKind::kError ? f : types::Bool();
    }
    bool wrap = e.optional;
    TypePtr base = operand;
    if (operand->kind == TypeKind::kOptional) {
      base = operand->params[0];
      wrap = true;
    }
    TypePtr f = FieldType(base, e.name, e.offset);
    if (f->kind == TypeKind::kError) return f;
    return wrap ? types::Optional(f) : f;
  }

  static std::string Signature(const std::vector<TypePtr>& args, bool member) {
    std::string out;
    size_t first = 0;
    if (member && !args.empty()) {
      out = TypeName(*args[0]) + ".";
      first = 1;
    }
    out += "(";
    for (size_t i = first; i < args.size(); ++i) {
      if (i > first) out += ", ";
      out += TypeName(*args[i]);
    }
    return out + ")";
  }

  TypePtr NoMatch(const Expr& e, const std::string& name, const std::vector<TypePtr>& args,
                  bool member) {
    for (const TypePtr& a : args) {
      if (a->kind == TypeKind::kError) return types::Error();
    }
    return Error(e.offset, "found no matching overload for '" + name + "' applied to '" +
                               Signature(args, member) + "'");
  }

  // Rewrites `ns.fn(args)` (an undeclared namespace identifier as receiver) into the global
  // call `ns.fn(args)` when the library has such a function (optional.of, sets.contains).
  void ResolveQualifiedName(Expr& e) {
    if (!e.has_target || e.args[0]->kind != ExprKind::kIdent) return;
    const std::string& ns = e.args[0]->name;
    int slot;
    if (FindLocal(ns, &slot) || ns == "device") return;
    std::string qualified = ns + "." + e.name;
    if (!Library::Get().Find(qualified)) return;
    e.name = qualified;
    e.args.erase(e.args.begin());
    e.has_target = false;
  }

  TypePtr CheckCall(Expr& e) {
    ResolveQualifiedName(e);
    std::vector<TypePtr> args;
    for (ExprPtr& a : e.args) args.push_back(Check(*a));
    if (e.name == "_&&_" || e.name == "_||_") {
      if (IsBoolish(*args[0]) && IsBoolish(*args[1])) return types::Bool();
      return NoMatch(e, e.name, args, false);
    }
    if (e.name == "_?_:_") {
      TypeBindings b;
      TypePtr a = types::Param("A");
      if (Unify(types::Bool(), args[0], b) && Unify(a, args[1], b) && Unify(a, args[2], b)) {
        return Substitute(a, b);
      }
      return NoMatch(e, e.name, args, false);
    }
    bool unwrap = (e.name == "_[_]" || e.name == "_[?_]") && args[0]->kind == TypeKind::kOptional;
    if (unwrap) args[0] = args[0]->params[0];
    TypePtr result = Resolve(e, args);
    if (unwrap && result->kind != TypeKind::kError && result->kind != TypeKind::kOptional) {
      result = types::Optional(result);
    }
    if (result->kind != TypeKind::kError) PrecompileRegex(e);
    return result;
  }

  TypePtr Resolve(Expr& e, const std::vector<TypePtr>& args) {
    const Function* fn = Library::Get().Find(e.name);
    if (!fn) return Undeclared(e.offset, e.name);
    std::vector<TypePtr> results;
    for (const Overload& o : fn->overloads) {
      if (o.member != e.has_target || o.params.size() != args.size()) continue;
      TypeBindings b;
      bool ok = true;
      for (size_t i = 0; i < args.size() && ok; ++i) ok = Unify(o.params[i], args[i], b);
      if (!ok) continue;
      e.overloads.push_back(&o);
      results.push_back(Substitute(o.result, b));
    }
    if (results.empty()) return NoMatch(e, e.name, args, e.has_target);
    TypePtr r = results[0];
    for (const TypePtr& t : results) {
      if (!SameType(*t, *r)) return types::Dyn();
    }
    return r;
  }

  void PrecompileRegex(Expr& e) {
    if (e.name != "matches" && e.name != "find" && e.name != "findAll") return;
    if (e.args.size() < 2) return;
    const Expr& pattern = *e.args[1];
    if (pattern.kind != ExprKind::kConst || pattern.constant.kind() != ValueKind::kString) return;
    Result<std::shared_ptr<const Regex>> re = Regex::Compile(pattern.constant.string_value());
    if (!re.ok()) {
      errors_.Add(pattern.offset, re.status().message());
      return;
    }
    e.regex = *re;
  }

  TypePtr CheckList(Expr& e) {
    TypePtr elem;
    for (size_t i = 0; i < e.args.size(); ++i) {
      TypePtr t = Check(*e.args[i]);
      if (e.optional_entries[i]) {
        if (t->kind == TypeKind::kOptional) {
          t = t->params[0];
        } else if (!IsDynOrError(*t)) {
          return Error(e.args[i]->offset,
                       "found no matching overload for 'optional entry' "
                       "applied to '(" +
                           TypeName(*t) + ")'");
        }
      }
      elem = elem ? JoinTypes(elem, t) : t;
    }
    return types::List(elem ? elem : types::Dyn());
  }

  TypePtr CheckMap(Expr& e) {
    TypePtr key, value;
    for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
      TypePtr k = Check(*e.args[i]);
      TypePtr v = Check(*e.args[i + 1]);
      if (e.optional_entries[i / 2] && v->kind == TypeKind::kOptional) v = v->params[0];
      switch (k->kind) {
        case TypeKind::kInt:
        case TypeKind::kUint:
        case TypeKind::kString:
        case TypeKind::kBool:
        case TypeKind::kDyn:
        case TypeKind::kError:
          break;
        default:
          Error(e.args[i]->offset, "unsupported map key type: " + TypeName(*k));
      }
      key = key ? JoinTypes(key, k) : k;
      value = value ? JoinTypes(value, v) : v;
    }
    return types::Map(key ? key : types::Dyn(), value ? value : types::Dyn());
  }

  int Push(const std::string& name, TypePtr t) {
    scopes_.emplace_back(name, std::move(t));
    max_slots_ = std::max(max_slots_, static_cast<int>(scopes_.size()));
    return static_cast<int>(scopes_.size()) - 1;
  }

  TypePtr CheckComprehension(Expr& e) {
    TypePtr range = Check(*e.args[0]);
    TypePtr var;
    switch (range->kind) {
      case TypeKind::kList:
        var = range->params[0];
        break;
      case TypeKind::kMap:
        var = range->params[0];
        break;
      case TypeKind::kDyn:
      case TypeKind::kError:
        var = types::Dyn();
        break;
      default:
        Error(e.args[0]->offset, "expression of type '" + TypeName(*range) +
                                     "' cannot be the range of a comprehension (must be list, "
                                     "map, or dynamic)");
        var = types::Dyn();
    }
    e.slot = Push(e.name, var);
    TypePtr a = Check(*e.args[1]);
    TypePtr b = e.args.size() > 2 ? Check(*e.args[2]) : nullptr;
    scopes_.pop_back();
    auto require_bool = [&](const TypePtr& t, const Expr& at, const char* op, const char* sig) {
      if (IsBoolish(*t)) return true;
      Error(at.offset, std::string("found no matching overload for '") + op + "' applied to '" +
                           std::string(sig) + TypeName(*t) + ")'");
      return false;
    };
    switch (e.macro) {
      case MacroKind::kAll:
        require_bool(a, *e.args[1], "_&&_", "(bool, ");
        return types::Bool();
      case MacroKind::kExists:
        require_bool(a, *e.args[1], "_||_", "(bool, ");
        return types::Bool();
      case MacroKind::kExistsOne:
        require_bool(a, *e.args[1], "_?_:_", "(int, ");
        return types::Bool();
      case MacroKind::kMap:
        return types::List(a->kind == TypeKind::kError ? types::Dyn() : a);
      case MacroKind::kMapFilter:
        require_bool(a, *e.args[1], "_?_:_", "(list, ");
        return types::List(b->kind == TypeKind::kError ? types::Dyn() : b);
      case MacroKind::kFilter:
        require_bool(a, *e.args[1], "_?_:_", "(list, ");
        return types::List(var);
    }
    return types::Dyn();
  }

  TypePtr CheckBind(Expr& e) {
    TypePtr init = Check(*e.args[0]);
    e.slot = Push(e.name, init);
    TypePtr body = Check(*e.args[1]);
    scopes_.pop_back();
    return body;
  }

  ErrorList& errors_;
  std::vector<std::pair<std::string, TypePtr>> scopes_;
  int max_slots_ = 0;
};

}  // namespace

int Check(Expr& root, ErrorList& errors) {
  Checker checker(errors);
  checker.Check(root);
  return checker.max_slots();
}

}  // namespace allot::cel

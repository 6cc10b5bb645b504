#include "cel/interpreter.h"

#include <array>

#include "cel/device_value.h"
#include "cel/library.h"

namespace allot::cel {

namespace {

class Evaluator {
 public:
  Evaluator(const EvalOptions& options, const api::Device& device, std::string_view driver)
      : device_(Value::Device(&device, driver)),
        locals_(static_cast<size_t>(options.num_slots), Result<Value>(Value())),
        limit_(options.cost_limit) {}

  uint64_t cost() const { return cost_; }

  Result<Value> Eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        return e.constant;
      case ExprKind::kIdent:
        return EvalIdent(e);
      case ExprKind::kSelect:
        return EvalSelect(e);
      case ExprKind::kCall:
        return EvalCall(e);
      case ExprKind::kList:
        return EvalList(e);
      case ExprKind::kMap:
        return EvalMap(e);
      case ExprKind::kComprehension:
        return EvalComprehension(e);
      case ExprKind::kBind:
        return EvalBind(e);
    }
    return NoSuchOverload();
  }

 private:
  static Status Cancelled() { return EvalError(std::string(kCostLimitExceeded)); }

  // Adds `n` to the cost; false (and cancelled) when over the limit.
  bool Charge(uint64_t n) {
    cost_ = SatAdd(cost_, n);
    if (cost_ > limit_) cancelled_ = true;
    return !cancelled_;
  }

  Result<Value> EvalIdent(const Expr& e) {
    if (!Charge(1)) return Cancelled();
    switch (e.ident_kind) {
      case IdentKind::kDevice:
        return device_;
      case IdentKind::kTypeName:
        return e.constant;
      case IdentKind::kLocal:
        return locals_[static_cast<size_t>(e.slot)];
      case IdentKind::kUnresolved:
        break;
    }
    return EvalError("no such attribute: " + e.name);
  }

  // `.field` on a non-optional value; nullopt when absent (map key or unknown device field).
  Result<std::optional<Value>> Field(const Value& v, const std::string& name) {
    if (v.kind() == ValueKind::kDevice) return DeviceField(v.device(), name);
    if (v.IsMap()) {
      StringRef key = StringRef::View(name);  // the tree outlives the evaluation
      return MapFind(v, Value::String(key));
    }
    return NoSuchOverload();
  }

  Result<Value> EvalSelect(const Expr& e) {
    ALLOT_ASSIGN_OR_RETURN(Value operand, Eval(*e.args[0]));
    if (!Charge(1)) return Cancelled();
    if (e.test_only) {
      if (operand.kind() == ValueKind::kDevice) {
        return Value::Bool(DeviceField(operand.device(), e.name).has_value());
      }
      if (!operand.IsMap()) return NoSuchOverload();
      Result<std::optional<Value>> f = Field(operand, e.name);
      return Value::Bool(!f.ok() || f->has_value());  // present even if unconvertible
    }
    bool optional = e.optional;
    if (operand.kind() == ValueKind::kOptional) {
      const Value* inner = operand.optional_value();
      if (!inner) return operand;  // none propagates
      Value copy = *inner;
      operand = std::move(copy);
      optional = true;
    }
    ALLOT_ASSIGN_OR_RETURN(std::optional<Value> f, Field(operand, e.name));
    if (optional) return f ? Value::OptionalOf(std::move(*f)) : Value::Optional(nullptr);
    if (!f) return EvalError("no such key: " + e.name);
    return std::move(*f);
  }

  Result<Value> EvalLogical(const Expr& e, bool is_and) {
    // The value that decides the result on its own: false for &&, true for ||.
    const bool decisive = !is_and;
    Result<Value> l = Eval(*e.args[0]);
    if (cancelled_) return Cancelled();
    if (l.ok() && l->kind() == ValueKind::kBool && l->bool_value() == decisive) return l;
    Result<Value> r = Eval(*e.args[1]);
    if (cancelled_) return Cancelled();
    if (r.ok() && r->kind() == ValueKind::kBool && r->bool_value() == decisive) return r;
    if (!l.ok()) return l;
    if (!r.ok()) return r;
    if (l->kind() == ValueKind::kBool && r->kind() == ValueKind::kBool) {
      return Value::Bool(!decisive);
    }
    return NoSuchOverload();
  }

  Result<Value> EvalTernary(const Expr& e) {
    ALLOT_ASSIGN_OR_RETURN(Value c, Eval(*e.args[0]));
    if (c.kind() != ValueKind::kBool) return NoSuchOverload();
    return Eval(*e.args[c.bool_value() ? 1 : 2]);
  }

  Result<Value> EvalCall(const Expr& e) {
    switch (e.special) {
      case SpecialCall::kAnd:
        return EvalLogical(e, true);
      case SpecialCall::kOr:
        return EvalLogical(e, false);
      case SpecialCall::kTernary:
        return EvalTernary(e);
      default:
        break;
    }
    const size_t n = e.args.size();
    std::array<Value, 4> small;
    std::vector<Value> large;
    Value* args = small.data();
    if (n > small.size()) {
      large.resize(n);
      args = large.data();
    }
    for (size_t i = 0; i < n; ++i) {
      ALLOT_ASSIGN_OR_RETURN(args[i], Eval(*e.args[i]));
    }
    std::span<Value> span(args, n);
    if ((e.special == SpecialCall::kIndex || e.special == SpecialCall::kOptIndex) &&
        args[0].kind() == ValueKind::kOptional) {
      // Indexing an optional behaves like `[?key]` on its value.
      const Value* inner = args[0].optional_value();
      if (!inner) return args[0];
      Value copy = *inner;
      args[0] = std::move(copy);
      ALLOT_ASSIGN_OR_RETURN(Value r, Dispatch(e, span));
      if (e.special == SpecialCall::kOptIndex) return r;
      return Value::OptionalOf(std::move(r));
    }
    return Dispatch(e, span);
  }

  Result<Value> Dispatch(const Expr& e, std::span<Value> args) {
    for (const Overload* o : e.overloads) {
      bool match = true;
      for (size_t i = 0; i < args.size() && match; ++i)
        match = ValueMatches(args[i], *o->params[i]);
      if (!match) continue;
      std::array<uint64_t, 4> sizes{};
      for (size_t i = 0; i < args.size() && i < sizes.size(); ++i) sizes[i] = CostSize(args[i]);
      if (!Charge(CallCost(o->cost, std::span<const uint64_t>(sizes.data(),
                                                              std::min<size_t>(args.size(), 4))))) {
        return Cancelled();
      }
      uint64_t extra = 0;
      CallContext ctx{&e, &extra, limit_ - cost_};
      Result<Value> r = o->impl(ctx, args);
      if (extra > 0 && !Charge(extra)) return Cancelled();
      return r;
    }
    return NoSuchOverload();
  }

  Result<Value> EvalList(const Expr& e) {
    if (!Charge(kListCreateCost)) return Cancelled();
    std::vector<Value> items;
    items.reserve(e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i) {
      ALLOT_ASSIGN_OR_RETURN(Value v, Eval(*e.args[i]));
      if (e.optional_entries[i]) {
        if (v.kind() != ValueKind::kOptional) return NoSuchOverload();
        if (!v.optional_value()) continue;
        Value inner = *v.optional_value();
        v = std::move(inner);
      }
      items.push_back(std::move(v));
    }
    return Value::List(std::move(items));
  }

  Result<Value> EvalMap(const Expr& e) {
    if (!Charge(kMapCreateCost)) return Cancelled();
    auto map = std::make_shared<MapEntries>();
    for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
      ALLOT_ASSIGN_OR_RETURN(Value k, Eval(*e.args[i]));
      ALLOT_ASSIGN_OR_RETURN(Value v, Eval(*e.args[i + 1]));
      if (e.optional_entries[i / 2]) {
        if (v.kind() != ValueKind::kOptional) return NoSuchOverload();
        if (!v.optional_value()) continue;
        Value inner = *v.optional_value();
        v = std::move(inner);
      }
      switch (k.kind()) {
        case ValueKind::kInt:
        case ValueKind::kUint:
        case ValueKind::kString:
        case ValueKind::kBool:
          break;
        default:
          return EvalError("unsupported key type: " + std::string(RuntimeTypeName(k)));
      }
      Value probe = Value::Map(map);
      ALLOT_ASSIGN_OR_RETURN(std::optional<Value> existing, MapFind(probe, k));
      if (existing) return EvalError("Failed with repeated key: " + DebugString(k));
      map->entries.emplace_back(std::move(k), std::move(v));
    }
    return Value::Map(std::move(map));
  }

  Result<Value> EvalComprehension(const Expr& e) {
    ALLOT_ASSIGN_OR_RETURN(Value range, Eval(*e.args[0]));
    std::vector<Value> keys;
    const std::vector<Value>* items = nullptr;
    if (range.kind() == ValueKind::kList) {
      items = &range.list();
    } else if (range.IsMap()) {
      keys = MapKeys(range);
      items = &keys;
    } else {
      return NoSuchOverload();
    }
    const size_t slot = static_cast<size_t>(e.slot);
    std::optional<Status> absorbed;  // all()/exists(): first error, unless decided otherwise
    int64_t count = 0;
    std::vector<Value> out;
    for (const Value& item : *items) {
      if (!Charge(1)) return Cancelled();
      locals_[slot] = item;
      Result<Value> a = Eval(*e.args[1]);
      if (cancelled_) return Cancelled();
      switch (e.macro) {
        case MacroKind::kAll:
        case MacroKind::kExists: {
          bool decisive = e.macro == MacroKind::kExists;
          if (!a.ok()) {
            if (!absorbed) absorbed = a.status();
          } else if (a->kind() != ValueKind::kBool) {
            if (!absorbed) absorbed = NoSuchOverload();
          } else if (a->bool_value() == decisive) {
            return Value::Bool(decisive);
          }
          break;
        }
        case MacroKind::kExistsOne:
          if (!a.ok()) return a;
          if (a->kind() != ValueKind::kBool) return NoSuchOverload();
          if (a->bool_value()) ++count;
          break;
        case MacroKind::kMap:
          if (!a.ok()) return a;
          out.push_back(std::move(*a));
          break;
        case MacroKind::kFilter:
        case MacroKind::kMapFilter: {
          if (!a.ok()) return a;
          if (a->kind() != ValueKind::kBool) return NoSuchOverload();
          if (!a->bool_value()) break;
          if (e.macro == MacroKind::kFilter) {
            out.push_back(item);
          } else {
            ALLOT_ASSIGN_OR_RETURN(Value t, Eval(*e.args[2]));
            out.push_back(std::move(t));
          }
          break;
        }
      }
    }
    switch (e.macro) {
      case MacroKind::kAll:
      case MacroKind::kExists:
        if (absorbed) return *absorbed;
        return Value::Bool(e.macro == MacroKind::kAll);
      case MacroKind::kExistsOne:
        return Value::Bool(count == 1);
      default:
        return Value::List(std::move(out));
    }
  }

  Result<Value> EvalBind(const Expr& e) {
    // Like cel-go, an error in the bound value surfaces only if the body reads it.
    Result<Value> init = Eval(*e.args[0]);
    if (cancelled_) return Cancelled();
    locals_[static_cast<size_t>(e.slot)] = std::move(init);
    return Eval(*e.args[1]);
  }

  Value device_;
  std::vector<Result<Value>> locals_;
  uint64_t limit_;
  uint64_t cost_ = 0;
  bool cancelled_ = false;
};

}  // namespace

Result<Value> Evaluate(const Expr& root, const EvalOptions& options, const api::Device& device,
                       std::string_view driver, uint64_t* actual_cost) {
  Evaluator ev(options, device, driver);
  Result<Value> r = ev.Eval(root);
  if (actual_cost) *actual_cost = ev.cost();
  return r;
}

}  // namespace allot::cel

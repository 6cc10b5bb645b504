#include "cel/cost.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "cel/ast.h"
#include "cel/library.h"

namespace allot::cel {

uint64_t SatAdd(uint64_t a, uint64_t b) { return a > kUnbounded - b ? kUnbounded : a + b; }

uint64_t SatMul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kUnbounded / b ? kUnbounded : a * b;
}

namespace {

// ceil(x * num / den), saturating.
uint64_t Scaled(uint64_t x, uint64_t num, uint64_t den) {
  uint64_t m = SatMul(x, num);
  if (m == kUnbounded) return kUnbounded;
  return (m + den - 1) / den;
}

}  // namespace

uint64_t CallCost(CostModel model, std::span<const uint64_t> sizes) {
  auto at = [&](size_t i) -> uint64_t { return i < sizes.size() ? sizes[i] : 0; };
  switch (model) {
    case CostModel::kOne:
      return 1;
    case CostModel::kCompare:
      return SatAdd(1, Scaled(std::min(at(0), at(1)), 1, 10));
    case CostModel::kStringScan: {
      uint64_t sum = 0;
      for (uint64_t s : sizes) sum = SatAdd(sum, s);
      return SatAdd(1, Scaled(sum, 1, 10));
    }
    case CostModel::kLinear: {
      uint64_t sum = 1;
      for (uint64_t s : sizes) sum = SatAdd(sum, s);
      return sum;
    }
    case CostModel::kProduct:
      return SatAdd(1, SatMul(at(0), at(1)));
    case CostModel::kRegex:
      return SatMul(SatAdd(1, Scaled(at(0), 1, 10)), SatAdd(1, Scaled(at(1), 1, 4)));
  }
  return 1;
}

namespace {

// Size bounds of a value: bytes of a string, entries of a list or map; `elem` describes list
// elements or map keys (and an optional's value), `value` map values.
struct Size {
  uint64_t min = 0;
  uint64_t max = 0;
  std::shared_ptr<const Size> elem;
  std::shared_ptr<const Size> value;
  bool device = false;  // the `device` object itself
};
using SizePtr = std::shared_ptr<const Size>;

SizePtr Make(uint64_t max, SizePtr elem = nullptr, SizePtr value = nullptr) {
  auto s = std::make_shared<Size>();
  s->max = max;
  s->elem = std::move(elem);
  s->value = std::move(value);
  return s;
}

SizePtr Unknown() {
  static const SizePtr* s = new SizePtr(Make(kUnbounded));
  return *s;
}
SizePtr Scalar() {
  static const SizePtr* s = new SizePtr(Make(0));
  return *s;
}

// The device's shape (Kubernetes' DRA size estimator: string values <= 64, domains <= 63,
// ids <= 32, <= 32 attributes and capacities).
SizePtr DeviceField(const std::string& field) {
  if (field == "driver") return Make(63);
  if (field == "attributes") return Make(32, Make(63), Make(32, Make(32), Make(64)));
  if (field == "capacity") return Make(32, Make(63), Make(32, Make(32), Scalar()));
  return Scalar();
}

SizePtr Union(const SizePtr& a, const SizePtr& b) {
  if (!a) return b;
  if (!b) return a;
  if (a == b) return a;
  auto s = std::make_shared<Size>();
  s->min = std::min(a->min, b->min);
  s->max = std::max(a->max, b->max);
  s->elem = a->elem && b->elem ? Union(a->elem, b->elem) : nullptr;
  s->value = a->value && b->value ? Union(a->value, b->value) : nullptr;
  return s;
}

SizePtr ElemOf(const SizePtr& s) { return s && s->elem ? s->elem : Unknown(); }
SizePtr ValueOf(const SizePtr& s) { return s && s->value ? s->value : Unknown(); }

struct Estimate {
  uint64_t min = 0;
  uint64_t max = 0;
  SizePtr size;
};

bool IsSized(const TypePtr& t) {
  if (!t) return true;
  switch (t->kind) {
    case TypeKind::kString:
    case TypeKind::kBytes:
    case TypeKind::kList:
    case TypeKind::kMap:
    case TypeKind::kDyn:
    case TypeKind::kOptional:
      return true;
    default:
      return false;
  }
}

class Estimator {
 public:
  Estimate Run(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        return {0, 0, ConstSize(e)};
      case ExprKind::kIdent:
        return Ident(e);
      case ExprKind::kSelect:
        return Select(e);
      case ExprKind::kCall:
        return Call(e);
      case ExprKind::kList:
      case ExprKind::kMap:
        return Literal(e);
      case ExprKind::kComprehension:
        return Comprehension(e);
      case ExprKind::kBind:
        return Bind(e);
    }
    return {0, kUnbounded, Unknown()};
  }

 private:
  static SizePtr ConstSize(const Expr& e) {
    if (e.constant.kind() == ValueKind::kString || e.constant.kind() == ValueKind::kBytes) {
      auto s = std::make_shared<Size>();
      s->min = s->max = e.text.size();
      return s;
    }
    return Scalar();
  }

  Estimate Ident(const Expr& e) {
    if (e.ident_kind == IdentKind::kDevice) {
      auto s = std::make_shared<Size>();
      s->device = true;
      return {1, 1, s};
    }
    if (e.ident_kind == IdentKind::kLocal && static_cast<size_t>(e.slot) < locals_.size()) {
      return {1, 1, locals_[static_cast<size_t>(e.slot)]};
    }
    return {1, 1, Scalar()};
  }

  Estimate Select(const Expr& e) {
    Estimate op = Run(*e.args[0]);
    Estimate out{SatAdd(op.min, 1), SatAdd(op.max, 1), nullptr};
    if (e.test_only) {
      out.size = Scalar();
    } else if (op.size && op.size->device) {
      out.size = DeviceField(e.name);
    } else {
      out.size = ValueOf(op.size);
    }
    return out;
  }

  Estimate Call(const Expr& e) {
    std::vector<Estimate> args;
    for (const ExprPtr& a : e.args) args.push_back(Run(*a));
    if (e.special == SpecialCall::kAnd || e.special == SpecialCall::kOr) {
      return {args[0].min, SatAdd(args[0].max, args[1].max), Scalar()};
    }
    if (e.special == SpecialCall::kTernary) {
      return {SatAdd(args[0].min, std::min(args[1].min, args[2].min)),
              SatAdd(args[0].max, std::max(args[1].max, args[2].max)),
              Union(args[1].size, args[2].size)};
    }
    Estimate out;
    for (const Estimate& a : args) {
      out.min = SatAdd(out.min, a.min);
      out.max = SatAdd(out.max, a.max);
    }
    std::vector<uint64_t> min_sizes, max_sizes;
    for (const Estimate& a : args) {
      min_sizes.push_back(a.size ? a.size->min : 0);
      max_sizes.push_back(a.size ? a.size->max : kUnbounded);
    }
    uint64_t call_min = kUnbounded, call_max = 0;
    for (const Overload* o : e.overloads) {
      call_min = std::min(call_min, CallCost(o->cost, min_sizes));
      call_max = std::max(call_max, CallCost(o->cost, max_sizes));
    }
    if (e.overloads.empty()) call_min = call_max = 1;
    out.min = SatAdd(out.min, call_min);
    out.max = SatAdd(out.max, call_max);
    out.size = ResultSize(e, args);
    return out;
  }

  SizePtr ResultSize(const Expr& e, const std::vector<Estimate>& a) {
    const std::string& fn = e.name;
    auto sz = [&](size_t i) { return i < a.size() && a[i].size ? a[i].size : Unknown(); };
    if (fn == "_[_]" || fn == "_[?_]") {
      const SizePtr& c = sz(0);
      return c->value ? c->value : ElemOf(c);  // maps: values; lists: elements
    }
    if (fn == "_+_") {
      auto s = std::make_shared<Size>();
      s->min = SatAdd(sz(0)->min, sz(1)->min);
      s->max = SatAdd(sz(0)->max, sz(1)->max);
      if (sz(0)->elem && sz(1)->elem) s->elem = Union(sz(0)->elem, sz(1)->elem);
      return s;
    }
    if (fn == "lowerAscii" || fn == "upperAscii" || fn == "trim" || fn == "substring" ||
        fn == "charAt" || fn == "find" || fn == "dyn" || fn == "bytes") {
      return Make(sz(0)->max);
    }
    if (fn == "string") return Make(std::max<uint64_t>(sz(0)->max, 32));
    if (fn == "replace")
      return Make(SatMul(SatAdd(sz(0)->max, 1), std::max<uint64_t>(sz(2)->max, 1)));
    if (fn == "split" || fn == "findAll") {
      return Make(SatAdd(sz(0)->max, 1), Make(sz(0)->max));
    }
    if (fn == "join") {
      SizePtr elem = ElemOf(sz(0));
      uint64_t sep = a.size() > 1 ? sz(1)->max : 0;
      return Make(SatMul(sz(0)->max, SatAdd(elem->max, sep)));
    }
    if (fn == "min" || fn == "max") return ElemOf(sz(0));
    if (fn == "optional.of" || fn == "optional.ofNonZeroValue") return Make(0, sz(0));
    if (fn == "value") return ElemOf(sz(0));
    if (fn == "orValue") return Union(ElemOf(sz(0)), sz(1));
    if (fn == "or") return Union(sz(0), sz(1));
    return IsSized(e.type) ? Unknown() : Scalar();
  }

  Estimate Literal(const Expr& e) {
    bool is_map = e.kind == ExprKind::kMap;
    Estimate out{is_map ? kMapCreateCost : kListCreateCost,
                 is_map ? kMapCreateCost : kListCreateCost, nullptr};
    SizePtr keys, values;
    for (size_t i = 0; i < e.args.size(); ++i) {
      Estimate a = Run(*e.args[i]);
      out.min = SatAdd(out.min, a.min);
      out.max = SatAdd(out.max, a.max);
      SizePtr s = a.size;
      bool optional_entry =
          is_map ? (i % 2 == 1 && e.optional_entries[i / 2]) : e.optional_entries[i];
      if (optional_entry) s = ElemOf(s);
      if (is_map && i % 2 == 1) {
        values = Union(values, s);
      } else {
        keys = Union(keys, s);
      }
    }
    uint64_t n = is_map ? e.args.size() / 2 : e.args.size();
    auto s = std::make_shared<Size>();
    s->min = 0;
    s->max = n;
    s->elem = keys ? keys : Scalar();
    if (is_map) s->value = values ? values : Scalar();
    out.size = s;
    return out;
  }

  SizePtr& Slot(int slot) {
    if (locals_.size() <= static_cast<size_t>(slot)) locals_.resize(static_cast<size_t>(slot) + 1);
    return locals_[static_cast<size_t>(slot)];
  }

  Estimate Comprehension(const Expr& e) {
    Estimate range = Run(*e.args[0]);
    SizePtr rs = range.size ? range.size : Unknown();
    uint64_t iterations = rs->max;
    Slot(e.slot) = ElemOf(rs);
    Estimate a = Run(*e.args[1]);
    Estimate b = e.args.size() > 2 ? Run(*e.args[2]) : Estimate{0, 0, Scalar()};
    Slot(e.slot) = nullptr;
    uint64_t per = SatAdd(1, SatAdd(a.max, b.max));
    Estimate out{range.min, SatAdd(range.max, SatMul(iterations, per)), Scalar()};
    switch (e.macro) {
      case MacroKind::kMap:
        out.size = Make(iterations, a.size);
        break;
      case MacroKind::kMapFilter:
        out.size = Make(iterations, b.size);
        break;
      case MacroKind::kFilter:
        out.size = Make(iterations, ElemOf(rs));
        break;
      default:
        break;
    }
    return out;
  }

  Estimate Bind(const Expr& e) {
    Estimate init = Run(*e.args[0]);
    Slot(e.slot) = init.size ? init.size : Unknown();
    Estimate body = Run(*e.args[1]);
    Slot(e.slot) = nullptr;
    return {SatAdd(init.min, body.min), SatAdd(init.max, body.max), body.size};
  }

  std::vector<SizePtr> locals_;
};

}  // namespace

uint64_t EstimateCost(const Expr& root) {
  Estimator est;
  return est.Run(root).max;
}

}  // namespace allot::cel

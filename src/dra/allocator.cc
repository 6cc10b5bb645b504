// Allocator::Create: resolves classes, checks gates, compiles selectors and computes the
// candidate devices of every (sub)request once per pod.
#include "dra/allocator.h"

#include <algorithm>
#include <map>
#include <utility>

#include "cel/cel.h"
#include "dra/allocator_internal.h"
#include "dra/device_rules.h"

namespace allot::dra {
namespace {

Status Unschedulable(std::string message) { return Status(kUnschedulableCode, std::move(message)); }

// The fields of a request or subrequest the allocator reads.
struct RequestView {
  std::string name;  // "req" or "req/sub"
  const api::InternedString* class_name;
  const std::vector<api::DeviceSelector>* selectors;
  const api::InternedString* mode;
  int64_t count;
  std::optional<bool> admin;
  const std::vector<api::DeviceToleration>* tolerations;
  const std::optional<api::CapacityRequirements>* capacity;
};

class Builder {
 public:
  Builder(const AllocatorOptions& options, std::shared_ptr<const Inventory> inventory,
          const ClassLookup& classes, Allocator::Impl& impl)
      : options_(options), classes_(classes), impl_(impl) {
    impl_.features = options.features;
    impl_.max_steps = options.max_steps;
    impl_.inventory = std::move(inventory);
  }

  Status AddClaim(std::shared_ptr<const api::ResourceClaim> claim);

 private:
  Status AddRequest(uint32_t claim, uint32_t index, const api::DeviceRequest& request);
  Status AddAlternative(uint32_t request, const RequestView& view);
  Status AddConstraint(uint32_t claim, size_t index, const api::DeviceConstraint& c);
  Result<uint32_t> CandidatesFor(const RequestView& view, const api::DeviceClass& device_class);
  Result<std::vector<std::shared_ptr<const Inventory::SelectorResults>>> Verdicts(
      const RequestView& view, const api::DeviceClass& device_class);
  void FillSet(const RequestView& view,
               const std::vector<std::shared_ptr<const Inventory::SelectorResults>>& verdicts,
               CandidateSet& set);
  bool StaticallyUsable(const RequestView& view, DeviceIndex i, CandidateSet& set);

  const AllocatorOptions& options_;
  const ClassLookup& classes_;
  Allocator::Impl& impl_;
  std::map<std::string, uint32_t> set_by_key_;
  const ClaimInfo* claim_ = nullptr;
};

Status Builder::AddClaim(std::shared_ptr<const api::ResourceClaim> claim) {
  const uint32_t ci = static_cast<uint32_t>(impl_.claims.size());
  ClaimInfo& info = impl_.claims.emplace_back();
  info.claim = claim;
  info.label = claim->metadata.namespace_ + "/" + claim->metadata.name;
  claim_ = &info;
  if (claim->status.allocation) {
    return Unschedulable("claim " + info.label + " is already allocated");
  }
  if (impl_.features.control_plane_controller && !claim->spec.controllerName.empty()) {
    return Unschedulable("claim " + info.label + " is allocated by the control-plane controller " +
                         claim->spec.controllerName + ", not by the scheduler");
  }
  const api::DeviceClaim& devices = claim->spec.devices;
  for (size_t r = 0; r < devices.requests.size(); ++r) {
    ALLOT_RETURN_IF_ERROR(AddRequest(ci, static_cast<uint32_t>(r), devices.requests[r]));
  }
  for (size_t c = 0; c < devices.constraints.size(); ++c) {
    ALLOT_RETURN_IF_ERROR(AddConstraint(ci, c, devices.constraints[c]));
  }
  return Status::Ok();
}

Status Builder::AddRequest(uint32_t claim, uint32_t index, const api::DeviceRequest& request) {
  const std::string& label = impl_.claims[claim].label;
  const uint32_t ri = static_cast<uint32_t>(impl_.requests.size());
  Request& req = impl_.requests.emplace_back();
  req.claim = claim;
  req.index = index;
  req.spec = &request;
  impl_.claims[claim].requests.push_back(ri);
  if (request.exactly) {
    const api::ExactDeviceRequest& e = *request.exactly;
    if (e.rare->adminAccess && !impl_.features.admin_access) {
      return Unschedulable("claim " + label + ", request " + request.name +
                           ": admin access is requested, but the feature is disabled");
    }
    if (e.rare->adminAccess.value_or(false) && !options_.admin_access_allowed) {
      return Unschedulable("request " + request.name +
                           ": adminAccess is not allowed in namespace " +
                           impl_.claims[claim].claim->metadata.namespace_);
    }
    return AddAlternative(
        ri, RequestView{request.name, &e.deviceClassName, &e.selectors, &e.allocationMode, e.count,
                        e.rare->adminAccess, &e.rare->tolerations, &e.rare->capacity});
  }
  if (request.firstAvailable.empty()) {
    return Unschedulable("claim " + label + ", request " + request.name +
                         ": unsupported request type");
  }
  if (!impl_.features.prioritized_list) {
    return Unschedulable("claim " + label + ", request " + request.name +
                         ": has subrequests, but the DRAPrioritizedList feature is disabled");
  }
  impl_.requests[ri].first_available = true;
  for (const api::DeviceSubRequest& sub : request.firstAvailable) {
    ALLOT_RETURN_IF_ERROR(
        AddAlternative(ri, RequestView{request.name + "/" + sub.name, &sub.deviceClassName,
                                       &sub.selectors, &sub.allocationMode, sub.count, std::nullopt,
                                       &sub.tolerations, &sub.capacity}));
  }
  return Status::Ok();
}

Status Builder::AddAlternative(uint32_t request, const RequestView& view) {
  const std::string& label = claim_->label;
  if (view.capacity->has_value() && !impl_.features.consumable_capacity) {
    return Unschedulable("claim " + label + ", request " + view.name +
                         ": has capacity requests, but the DRAConsumableCapacity feature is "
                         "disabled");
  }
  std::shared_ptr<const api::DeviceClass> device_class =
      view.class_name->empty() ? nullptr : classes_(*view.class_name);
  if (device_class == nullptr) {
    return Unschedulable("request " + view.name + ": device class " + *view.class_name +
                         " does not exist");
  }
  Alternative alt;
  alt.request = request;
  alt.name = view.name;
  alt.device_class = device_class;
  alt.admin = view.admin.value_or(false);
  alt.tolerations = view.tolerations;
  if (view.mode->empty() || *view.mode == api::kAllocationModeExactCount) {
    alt.count = view.count > 0 ? view.count : 1;
  } else if (*view.mode == api::kAllocationModeAll) {
    alt.all = true;
    alt.count = 0;
  } else {
    return Unschedulable("claim " + label + ", request " + view.name + ": unsupported count mode " +
                         *view.mode);
  }
  ALLOT_ASSIGN_OR_RETURN(alt.candidates, CandidatesFor(view, *device_class));
  impl_.requests[request].alternatives.push_back(static_cast<uint32_t>(impl_.alternatives.size()));
  impl_.alternatives.push_back(std::move(alt));
  return Status::Ok();
}

Status Builder::AddConstraint(uint32_t claim, size_t index, const api::DeviceConstraint& c) {
  Constraint con;
  con.claim = claim;
  if (c.matchAttribute) {
    con.attribute = *c.matchAttribute;
  } else if (c.distinctAttribute) {
    con.match = false;
    con.attribute = *c.distinctAttribute;
  } else {
    return Unschedulable("claim " + impl_.claims[claim].label + ", constraint #" +
                         std::to_string(index) +
                         ": empty constraint (unsupported constraint type?)");
  }
  con.values = impl_.inventory->Attribute(con.attribute);
  con.in_scope.assign(impl_.alternatives.size(), 0);
  for (uint32_t ri : impl_.claims[claim].requests) {
    const Request& req = impl_.requests[ri];
    const std::string& rname = req.spec->name;
    const bool whole = c.requests.empty() ||
                       std::find(c.requests.begin(), c.requests.end(), rname) != c.requests.end();
    for (uint32_t a : req.alternatives) {
      const bool sub =
          req.first_available && std::find(c.requests.begin(), c.requests.end(),
                                           impl_.alternatives[a].name) != c.requests.end();
      con.in_scope[a] = whole || sub;
    }
  }
  impl_.claims[claim].constraints.push_back(static_cast<uint32_t>(impl_.constraints.size()));
  impl_.constraints.push_back(std::move(con));
  return Status::Ok();
}

// The set key: everything FillSet depends on.
std::string SetKey(const RequestView& view, const api::DeviceClass& device_class,
                   const Features& f) {
  std::string key = "dra/candidates";
  key.push_back('\0');
  for (bool b : {f.binding_conditions, f.resource_claim_device_status, f.partitionable_devices,
                 f.device_taints, f.consumable_capacity}) {
    key.push_back(b ? '1' : '0');
  }
  key.push_back('\0');
  for (const api::DeviceSelector& s : device_class.spec.selectors) {
    key += s.cel ? s.cel->expression : std::string();
    key.push_back('\0');
  }
  key.push_back('\1');
  for (const api::DeviceSelector& s : *view.selectors) {
    key += s.cel ? s.cel->expression : std::string();
    key.push_back('\0');
  }
  key.push_back('\1');
  for (const api::DeviceToleration& t : *view.tolerations) {
    key += t.key + '\0' + t.operator_ + '\0' + t.value + '\0' + t.effect + '\0';
  }
  key.push_back('\1');
  if (view.capacity->has_value()) {
    for (const auto& [name, q] : (*view.capacity)->requests) {
      key += name + '\0' + q.CanonicalString() + '\0';
    }
  }
  return key;
}

Result<uint32_t> Builder::CandidatesFor(const RequestView& view,
                                        const api::DeviceClass& device_class) {
  std::string key = SetKey(view, device_class, impl_.features);
  auto it = set_by_key_.find(key);
  if (it != set_by_key_.end()) return it->second;
  auto set = std::static_pointer_cast<const CandidateSet>(impl_.inventory->FindDerived(key));
  if (set == nullptr) {
    ALLOT_ASSIGN_OR_RETURN(auto verdicts, Verdicts(view, device_class));
    auto fresh = std::make_shared<CandidateSet>();
    FillSet(view, verdicts, *fresh);
    set = std::static_pointer_cast<const CandidateSet>(impl_.inventory->AddDerived(key, fresh));
  }
  const uint32_t index = static_cast<uint32_t>(impl_.sets.size());
  impl_.sets.push_back(std::move(set));
  set_by_key_.emplace(std::move(key), index);
  return index;
}

// Compiles and evaluates the class selectors, then the request's, in that order.
Result<std::vector<std::shared_ptr<const Inventory::SelectorResults>>> Builder::Verdicts(
    const RequestView& view, const api::DeviceClass& device_class) {
  std::vector<std::shared_ptr<const Inventory::SelectorResults>> out;
  auto add = [&](const std::vector<api::DeviceSelector>& selectors,
                 const std::string& owner) -> Status {
    for (size_t i = 0; i < selectors.size(); ++i) {
      if (!selectors[i].cel) {
        return Unschedulable(owner + ", selector #" + std::to_string(i) +
                             ": CEL expression empty (unsupported selector type?)");
      }
      auto program = options_.compile(selectors[i].cel->expression);
      if (!program.ok() || *program == nullptr) {
        std::string why = program.ok() ? "no program" : program.status().message();
        return Status(StatusCode::kInvalid,
                      owner + ": selector #" + std::to_string(i) + ": CEL compile error: " + why);
      }
      out.push_back(impl_.inventory->Evaluate(**program));
    }
    return Status::Ok();
  };
  ALLOT_RETURN_IF_ERROR(add(device_class.spec.selectors, "class " + device_class.metadata.name));
  ALLOT_RETURN_IF_ERROR(add(*view.selectors, "claim " + claim_->label));
  return out;
}

void Builder::FillSet(
    const RequestView& view,
    const std::vector<std::shared_ptr<const Inventory::SelectorResults>>& verdicts,
    CandidateSet& set) {
  const size_t n = impl_.inventory->size();
  set.bits.assign((n + 63) / 64, 0);
  for (DeviceIndex i = 0; i < n; ++i) {
    int8_t verdict = 1;
    const Inventory::SelectorResults* failed = nullptr;
    for (const auto& v : verdicts) {
      if (v->verdict[i] != 1) {
        verdict = v->verdict[i];
        failed = v.get();
        break;
      }
    }
    if (verdict == -1) {
      set.error_devices.push_back(i);
      if (set.error.empty()) set.error = "CEL runtime error: " + failed->first_error;
    }
    if (verdict != 1 || !StaticallyUsable(view, i, set)) continue;
    set.bits[i >> 6] |= uint64_t{1} << (i & 63);
  }
}

bool Builder::StaticallyUsable(const RequestView& view, DeviceIndex i, CandidateSet& set) {
  const Features& f = impl_.features;
  const Inventory::DeviceRef& ref = impl_.inventory->device(i);
  const Inventory::DeviceInfo& info = impl_.inventory->info(i);
  const api::Device& d = *ref.device;
  // Devices with binding conditions need both gates: the conditions are reported in the
  // claim's status.devices (KEP-5007).
  if (info.has_binding_conditions() && !(f.binding_conditions && f.resource_claim_device_status)) {
    return false;
  }
  if (!f.partitionable_devices && (info.per_device_node_selection || !d.consumesCounters.empty())) {
    return false;
  }
  if (f.device_taints && TaintPreventsAllocation(d, *view.tolerations)) return false;
  if (!f.consumable_capacity) return true;
  const bool shared = d.allowMultipleAllocations.value_or(false);
  const api::CapacityRequirements* request =
      view.capacity->has_value() ? &**view.capacity : nullptr;
  if (!shared && request == nullptr) return true;
  std::optional<std::vector<api::Quantity>> amounts = ConsumedCapacity(request, d, ref.driver);
  if (!amounts || !FitsCapacity(*amounts, d)) return false;
  if (shared) set.shares.emplace_back(i, std::move(*amounts));
  return true;
}

}  // namespace

const std::vector<api::Quantity>* CandidateSet::Share(DeviceIndex i) const {
  auto it = std::lower_bound(shares.begin(), shares.end(), i,
                             [](const auto& e, DeviceIndex d) { return e.first < d; });
  return it != shares.end() && it->first == i ? &it->second : nullptr;
}

Result<std::unique_ptr<Allocator>> Allocator::Create(
    const AllocatorOptions& options, std::shared_ptr<const Inventory> inventory,
    std::vector<std::shared_ptr<const api::ResourceClaim>> claims, const ClassLookup& classes) {
  if (!options.compile) {
    return Status(StatusCode::kInternalError, "AllocatorOptions.compile is required");
  }
  if (inventory == nullptr) inventory = Inventory::Build({});
  auto impl = std::make_unique<Impl>();
  Builder builder(options, std::move(inventory), classes, *impl);
  for (auto& claim : claims) {
    if (claim == nullptr) return Status(StatusCode::kInternalError, "null claim");
    ALLOT_RETURN_IF_ERROR(builder.AddClaim(std::move(claim)));
  }
  return std::unique_ptr<Allocator>(new Allocator(std::move(impl)));
}

Allocator::Allocator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Allocator::~Allocator() = default;

}  // namespace allot::dra

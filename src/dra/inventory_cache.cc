// Inventory::Evaluate and Inventory::Attribute: per-inventory caches of per-device results.
//
// Why a once_flag per entry rather than computing under the map lock: Filter runs on many
// threads, and the first pods after a slice change all ask for the same selectors at once.
// Holding the map lock while evaluating CEL over thousands of devices would serialize every
// other selector; computing without any coordination would evaluate the same selector on every
// thread. The map lock only guards finding/creating the entry; call_once makes the threads
// asking for the same entry wait for one computation.
#include <string>

#include "cel/cel.h"
#include "dra/inventory.h"
#include "dra/inventory_internal.h"

namespace allot::dra {
namespace {

template <class Entry>
std::shared_ptr<Entry> GetEntry(std::mutex& mu,
                                std::unordered_map<std::string, std::shared_ptr<Entry>>& cache,
                                std::string_view key) {
  std::lock_guard<std::mutex> lock(mu);
  auto [it, added] = cache.try_emplace(std::string(key));
  if (added) it->second = std::make_shared<Entry>();
  return it->second;
}

std::string ValueKey(const api::DeviceAttribute& a) {
  if (a.intValue) return "int:" + std::to_string(*a.intValue);
  if (a.boolValue) return *a.boolValue ? "bool:true" : "bool:false";
  if (a.stringValue) return "string:" + *a.stringValue;
  if (a.versionValue) return "version:" + *a.versionValue;
  return "";  // no value set: cannot match anything
}

}  // namespace

std::shared_ptr<const Inventory::SelectorResults> Inventory::Evaluate(
    const cel::DeviceSelectorProgram& program) const {
  std::shared_ptr<Impl::SelectorEntry> entry =
      GetEntry(impl_->mu, impl_->selector_cache, program.expression());
  std::call_once(entry->once, [&] {
    auto r = std::make_shared<SelectorResults>();
    r->verdict.resize(impl_->devices.size());
    for (size_t i = 0; i < impl_->devices.size(); ++i) {
      const DeviceRef& d = impl_->devices[i];
      Result<bool> m = program.Matches(d.driver, *d.device);
      if (!m.ok()) {
        r->verdict[i] = -1;
        if (r->first_error.empty()) r->first_error = m.status().message();
      } else {
        r->verdict[i] = *m ? 1 : 0;
      }
    }
    entry->result = std::move(r);
  });
  return entry->result;
}

std::shared_ptr<const Inventory::AttributeValues> Inventory::Attribute(
    std::string_view name) const {
  std::shared_ptr<Impl::AttributeEntry> entry = GetEntry(impl_->mu, impl_->attribute_cache, name);
  std::call_once(entry->once, [&] {
    auto r = std::make_shared<AttributeValues>();
    r->id.assign(impl_->devices.size(), -1);
    std::unordered_map<std::string, int32_t> ids;
    for (size_t i = 0; i < impl_->devices.size(); ++i) {
      const DeviceRef& d = impl_->devices[i];
      const api::DeviceAttribute* a = LookupAttribute(*d.device, d.driver, name);
      if (a == nullptr) continue;
      std::string key = ValueKey(*a);
      if (key.empty()) continue;
      auto [it, added] = ids.try_emplace(key, static_cast<int32_t>(r->values.size()));
      if (added) r->values.push_back(std::move(key));
      r->id[i] = it->second;
    }
    entry->result = std::move(r);
  });
  return entry->result;
}

std::shared_ptr<const void> Inventory::FindDerived(std::string_view key) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->derived.find(std::string(key));
  return it == impl_->derived.end() ? nullptr : it->second;
}

std::shared_ptr<const void> Inventory::AddDerived(std::string key,
                                                  std::shared_ptr<const void> value) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->derived.try_emplace(std::move(key), std::move(value)).first->second;
}

}  // namespace allot::dra

#include "api/scheduling/priority_admission.h"

#include "api/core/pod.h"
#include "api/scheduling/priority_class.h"

namespace allot::api {

namespace {

constexpr std::string_view kPods = "pods";
constexpr std::string_view kPriorityClasses = "priorityclasses.scheduling.k8s.io";

// The class pods without a priorityClassName get: the globalDefault one with the lowest value
// (should a race have left two); nullptr when none.
std::shared_ptr<const PriorityClass> DefaultClass(const ObjectReader& objects) {
  std::shared_ptr<const PriorityClass> best;
  for (const ObjectPtr& obj : objects.List(ResourceFor<PriorityClass>())) {
    auto pc = AsShared<PriorityClass>(obj);
    if (pc && pc->globalDefault && (!best || pc->value < best->value)) best = pc;
  }
  return best;
}

}  // namespace

Status AdmitPodPriority(Object& obj, const ObjectReader& objects) {
  auto& pod = static_cast<Pod&>(obj);
  PodSpec& spec = pod.spec;
  int32_t priority = 0;
  std::optional<std::string> policy = std::string(kPreemptLowerPriority);
  const std::string& name =
      pod.metadata.name.empty() ? pod.metadata.generateName : pod.metadata.name;
  if (spec.priorityClassName.empty()) {
    if (auto pc = DefaultClass(objects)) {
      spec.priorityClassName = pc->metadata.name;
      priority = pc->value;
      policy = pc->preemptionPolicy;
    }
  } else {
    ObjectPtr obj_pc = objects.Get(ResourceFor<PriorityClass>(), "", spec.priorityClassName);
    const auto* pc =
        obj_pc ? As<PriorityClass>(*obj_pc) : FindSystemPriorityClass(spec.priorityClassName);
    if (!pc) {
      return ForbiddenError(kPods, name,
                            "no PriorityClass with name " + spec.priorityClassName + " was found");
    }
    priority = pc->value;
    policy = pc->preemptionPolicy;
  }
  if (spec.priority && *spec.priority != priority) {
    return ForbiddenError(kPods, name,
                          "the integer value of priority (" + std::to_string(*spec.priority) +
                              ") must not be provided in pod spec; priority admission controller "
                              "computed " +
                              std::to_string(priority) + " from the given PriorityClass name");
  }
  spec.priority = priority;
  if (spec.preemptionPolicy && policy && *spec.preemptionPolicy != *policy) {
    return ForbiddenError(kPods, name,
                          "the string value of PreemptionPolicy (" + *spec.preemptionPolicy +
                              ") must not be provided in pod spec; priority admission controller "
                              "computed " +
                              *policy + " from the given PriorityClass name");
  }
  if (policy) spec.preemptionPolicy = policy;
  return Status::Ok();
}

Status AdmitPodPriorityUpdate(Object& obj, const Object& old_obj, const ObjectReader&) {
  auto& pod = static_cast<Pod&>(obj);
  const auto& old = static_cast<const Pod&>(old_obj);
  if (!pod.spec.priority) pod.spec.priority = old.spec.priority;
  if (!pod.spec.preemptionPolicy) pod.spec.preemptionPolicy = old.spec.preemptionPolicy;
  return Status::Ok();
}

Status AdmitPriorityClass(Object& obj, const ObjectReader& objects) {
  const auto& pc = static_cast<const PriorityClass&>(obj);
  if (!pc.globalDefault) return Status::Ok();
  for (const ObjectPtr& other_obj : objects.List(ResourceFor<PriorityClass>())) {
    const auto* other = As<PriorityClass>(*other_obj);
    if (other && other->globalDefault && other->metadata.name != pc.metadata.name) {
      return ForbiddenError(kPriorityClasses, pc.metadata.name,
                            "PriorityClass " + other->metadata.name +
                                " is already marked as default. Only one default can exist");
    }
  }
  return Status::Ok();
}

Status AdmitPriorityClassUpdate(Object& obj, const Object& old, const ObjectReader& objects) {
  const auto& pc = static_cast<const PriorityClass&>(obj);
  if (static_cast<const PriorityClass&>(old).globalDefault) return Status::Ok();
  if (!pc.globalDefault) return Status::Ok();
  return AdmitPriorityClass(obj, objects);
}

Status AdmitPriorityClassDelete(const Object& obj) {
  if (FindSystemPriorityClass(obj.metadata.name)) {
    return ForbiddenError(kPriorityClasses, obj.metadata.name,
                          "this is a system priority class and cannot be deleted");
  }
  return Status::Ok();
}

}  // namespace allot::api

// PriorityClass (scheduling.k8s.io/v1): codec, validation, and priority admission of pods and
// classes against a fake set of stored objects.
#include "api/scheduling/priority_class.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "api/core/pod.h"
#include "api/machinery/resources.h"
#include "api/scheduling/priority_admission.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::ExpectRoundTrip;

// Stored PriorityClasses, by name.
class FakeObjects : public ObjectReader {
 public:
  void Add(std::string name, int32_t value, bool global_default = false,
           std::string policy = "PreemptLowerPriority") {
    auto pc = std::make_shared<PriorityClass>();
    pc->metadata.name = name;
    pc->value = value;
    pc->globalDefault = global_default;
    pc->preemptionPolicy = policy;
    classes_[name] = pc;
  }
  ObjectPtr Get(const ResourceInfo&, std::string_view, std::string_view name) const override {
    auto it = classes_.find(std::string(name));
    return it == classes_.end() ? nullptr : it->second;
  }
  std::vector<ObjectPtr> List(const ResourceInfo&) const override {
    std::vector<ObjectPtr> out;
    for (const auto& [name, pc] : classes_) out.push_back(pc);
    return out;
  }

 private:
  std::map<std::string, ObjectPtr> classes_;
};

std::vector<std::string> Errors(const PriorityClass& pc) {
  FieldErrors errs;
  ValidatePriorityClass(pc, errs);
  return errs.Messages();
}

PriorityClass Class(std::string name, int32_t value) {
  PriorityClass pc;
  pc.metadata.name = std::move(name);
  pc.value = value;
  SetPriorityClassDefaults(pc);
  return pc;
}

Pod NamedPod(std::string class_name) {
  Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = "default";
  pod.spec.priorityClassName = std::move(class_name);
  return pod;
}

TEST(PriorityClassTest, RoundTripsAndRegisters) {
  ExpectRoundTrip(
      R"({"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1","metadata":{"name":"high"},)"
      R"("value":1000,"globalDefault":true,"description":"for jobs that matter",)"
      R"("preemptionPolicy":"Never"})");
  const ResourceInfo* r =
      ResourceRegistry::Default().Find("scheduling.k8s.io", "v1", "priorityclasses");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->namespaced);
  EXPECT_EQ(r->short_names, std::vector<std::string>{"pc"});
  ASSERT_NE(r->bootstrap, nullptr);
  EXPECT_EQ(r->bootstrap().size(), 2u);
}

TEST(PriorityClassTest, Validation) {
  EXPECT_TRUE(Errors(Class("high", 1000)).empty());
  EXPECT_TRUE(Errors(Class("negative", -5)).empty());
  EXPECT_EQ(
      Errors(Class("huge", 1000000001)),
      std::vector<std::string>{
          "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"});
  EXPECT_EQ(Errors(Class("system-foo", 5)),
            std::vector<std::string>{
                "metadata.name: Forbidden: priority class names with 'system-' prefix are "
                "reserved for system use only. error: system-foo is not a known system priority "
                "class"});
  EXPECT_EQ(Errors(Class("system-node-critical", 5)),
            std::vector<std::string>{
                "metadata.name: Forbidden: priority class names with 'system-' prefix are "
                "reserved for system use only. error: value of system-node-critical "
                "PriorityClass must be 2000001000"});
  EXPECT_TRUE(Errors(Class("system-node-critical", 2000001000)).empty());
  PriorityClass bad = Class("p", 1);
  bad.preemptionPolicy = "Sometimes";
  EXPECT_EQ(Errors(bad), std::vector<std::string>{
                             "preemptionPolicy: Unsupported value: \"Sometimes\": supported "
                             "values: \"PreemptLowerPriority\", \"Never\""});

  PriorityClass old = Class("p", 1), changed = Class("p", 2);
  changed.preemptionPolicy = "Never";
  FieldErrors errs;
  ValidatePriorityClassUpdate(changed, old, errs);
  EXPECT_EQ(
      errs.Messages(),
      (std::vector<std::string>{"value: Forbidden: may not be changed in an update.",
                                "preemptionPolicy: Invalid value: \"Never\": field is immutable"}));
}

TEST(PriorityAdmissionTest, ResolvesTheClass) {
  FakeObjects objects;
  objects.Add("high", 1000, false, "Never");
  Pod pod = NamedPod("high");
  ASSERT_TRUE(AdmitPodPriority(pod, objects).ok());
  EXPECT_EQ(pod.spec.priority, 1000);
  EXPECT_EQ(pod.spec.preemptionPolicy, "Never");

  // The same value written by hand is accepted; a different one is refused.
  Pod same = NamedPod("high");
  same.spec.priority = 1000;
  EXPECT_TRUE(AdmitPodPriority(same, objects).ok());
  Pod hand = NamedPod("high");
  hand.spec.priority = 7;
  Status st = AdmitPodPriority(hand, objects);
  EXPECT_EQ(st.code(), StatusCode::kForbidden);
  EXPECT_EQ(st.message(),
            "pods \"p\" is forbidden: the integer value of priority (7) must not be provided in "
            "pod spec; priority admission controller computed 1000 from the given PriorityClass "
            "name");
  Pod policy = NamedPod("high");
  policy.spec.preemptionPolicy = "PreemptLowerPriority";
  st = AdmitPodPriority(policy, objects);
  EXPECT_EQ(st.message(),
            "pods \"p\" is forbidden: the string value of PreemptionPolicy "
            "(PreemptLowerPriority) must not be provided in pod spec; priority admission "
            "controller computed Never from the given PriorityClass name");

  Pod unknown = NamedPod("nope");
  st = AdmitPodPriority(unknown, objects);
  EXPECT_EQ(st.code(), StatusCode::kForbidden);
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: no PriorityClass with name nope was found");

  Pod system = NamedPod("system-node-critical");
  ASSERT_TRUE(AdmitPodPriority(system, objects).ok());
  EXPECT_EQ(system.spec.priority, 2000001000);
}

TEST(PriorityAdmissionTest, GlobalDefault) {
  FakeObjects objects;
  Pod none = NamedPod("");
  ASSERT_TRUE(AdmitPodPriority(none, objects).ok());
  EXPECT_EQ(none.spec.priority, 0);
  EXPECT_EQ(none.spec.priorityClassName, "");
  EXPECT_EQ(none.spec.preemptionPolicy, "PreemptLowerPriority");

  // Two defaults (a race): the lowest value wins.
  objects.Add("b", 50, true);
  objects.Add("a", 100, true);
  Pod pod = NamedPod("");
  ASSERT_TRUE(AdmitPodPriority(pod, objects).ok());
  EXPECT_EQ(pod.spec.priority, 50);
  EXPECT_EQ(pod.spec.priorityClassName, "b");

  PriorityClass another = Class("c", 1);
  another.globalDefault = true;
  Status st = AdmitPriorityClass(another, objects);
  EXPECT_EQ(st.code(), StatusCode::kForbidden);
  EXPECT_NE(st.message().find("is already marked as default. Only one default can exist"),
            std::string::npos);
}

TEST(PriorityAdmissionTest, UpdateKeepsPriorityAndSystemClassesStay) {
  Pod old = NamedPod("high");
  old.spec.priority = 1000;
  old.spec.preemptionPolicy = "Never";
  Pod update = NamedPod("high");
  FakeObjects objects;
  ASSERT_TRUE(AdmitPodPriorityUpdate(update, old, objects).ok());
  EXPECT_EQ(update.spec.priority, 1000);
  EXPECT_EQ(update.spec.preemptionPolicy, "Never");

  Status st = AdmitPriorityClassDelete(Class("system-cluster-critical", 2000000000));
  EXPECT_EQ(st.message(),
            "priorityclasses.scheduling.k8s.io \"system-cluster-critical\" is forbidden: this is "
            "a system priority class and cannot be deleted");
  EXPECT_TRUE(AdmitPriorityClassDelete(Class("high", 1)).ok());
}

}  // namespace
}  // namespace allot::api

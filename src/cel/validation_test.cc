// API validation with CEL compilation (cel::SelectorValidators()): compile errors and the
// cost limit on DeviceClass, ResourceClaim and ResourceClaimTemplate selectors.
#include <gtest/gtest.h>

#include "api/resource/validation.h"
#include "cel/cel.h"

namespace allot::cel {
namespace {

api::DeviceSelector Cel(std::string expr) {
  api::DeviceSelector s;
  s.cel = api::CELDeviceSelector{std::move(expr)};
  return s;
}

api::DeviceClass Class(std::vector<std::string> exprs) {
  api::DeviceClass c;
  c.metadata.name = "gpu.example.com";
  for (auto& e : exprs) c.spec.selectors.push_back(Cel(std::move(e)));
  return c;
}

api::ResourceClaim Claim(std::string expr) {
  api::ResourceClaim c;
  c.metadata.name = "claim";
  c.metadata.namespace_ = "ns";
  api::DeviceRequest r;
  r.name = "gpu";
  api::ExactDeviceRequest e;
  e.deviceClassName = "gpu.example.com";
  e.allocationMode = "ExactCount";
  e.count = 1;
  e.selectors.push_back(Cel(std::move(expr)));
  r.exactly = e;
  c.spec.devices.requests.push_back(r);
  return c;
}

const char* kTooComplex =
    "device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, "
    "device.attributes.all(d, a == b))))";

class ValidationTest : public ::testing::Test {
 protected:
  const api::Validators validators_ = SelectorValidators();
};

TEST_F(ValidationTest, ValidSelectorsPass) {
  api::FieldErrors errs;
  api::ValidateDeviceClass(Class({"device.driver == 'gpu.example.com'",
                                  "device.attributes['gpu.example.com'].model == 'X'"}),
                           errs, validators_);
  EXPECT_TRUE(errs.empty()) << errs.Messages()[0];
}

TEST_F(ValidationTest, CompileErrorIsInvalid) {
  api::FieldErrors errs;
  api::ValidateDeviceClass(Class({"device.driver == 'a'", "device.foo == 1"}), errs, validators_);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.Messages()[0],
            "spec.selectors[1].cel.expression: Invalid value: \"device.foo == 1\": compilation "
            "failed: ERROR: <input>:1:7: undefined field 'foo'\n | device.foo == 1\n | ......^");
  EXPECT_EQ(errs.causes()[0].reason, "FieldValueInvalid");
}

TEST_F(ValidationTest, NonBoolIsInvalid) {
  api::FieldErrors errs;
  api::ValidateResourceClaim(Claim("device.driver"), errs, validators_);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.Messages()[0],
            "spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "
            "\"device.driver\": must evaluate to bool or the unknown type, not string");
}

TEST_F(ValidationTest, CostAboveLimitIsForbidden) {
  api::FieldErrors errs;
  api::ValidateResourceClaim(Claim(kTooComplex), errs, validators_);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.Messages()[0],
            "spec.devices.requests[0].exactly.selectors[0].cel.expression: Forbidden: too "
            "complex, exceeds cost limit");
  EXPECT_EQ(errs.causes()[0].reason, "FieldValueForbidden");
}

TEST_F(ValidationTest, TemplatesAndSubrequests) {
  api::ResourceClaimTemplate t;
  t.metadata.name = "tmpl";
  t.metadata.namespace_ = "ns";
  t.spec.spec = Claim("1 +").spec;
  api::DeviceSubRequest sub;
  sub.name = "small";
  sub.deviceClassName = "gpu.example.com";
  sub.allocationMode = "ExactCount";
  sub.count = 1;
  sub.selectors.push_back(Cel("nope"));
  api::DeviceRequest r;
  r.name = "alt";
  r.firstAvailable.push_back(sub);
  t.spec.spec.devices.requests.push_back(r);
  api::FieldErrors errs;
  api::ValidateResourceClaimTemplate(t, errs, validators_);
  std::vector<std::string> m = errs.Messages();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].rfind("spec.spec.devices.requests[0].exactly.selectors[0].cel.expression: "
                       "Invalid value: \"1 +\": compilation failed: ERROR: <input>:1:4: Syntax "
                       "error: mismatched input '<EOF>'",
                       0),
            0u)
      << m[0];
  EXPECT_EQ(m[1].rfind("spec.spec.devices.requests[1].firstAvailable[0].selectors[0].cel."
                       "expression: Invalid value: \"nope\": compilation failed: ERROR: "
                       "<input>:1:1: undeclared reference to 'nope' (in container '')",
                       0),
            0u)
      << m[1];
}

TEST_F(ValidationTest, EmptyAndTooLongAreNotCompiled) {
  api::FieldErrors errs;
  api::ValidateDeviceClass(Class({""}), errs, validators_);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.Messages()[0], "spec.selectors[0].cel.expression: Required value");
  api::FieldErrors long_errs;
  std::string long_expr(api::kCELSelectorExpressionMaxLength + 1, ' ');
  api::ValidateDeviceClass(Class({long_expr}), long_errs, validators_);
  ASSERT_EQ(long_errs.size(), 1u);
  EXPECT_EQ(long_errs.Messages()[0],
            "spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes");
}

TEST_F(ValidationTest, UpdateRevalidatesTheNewObject) {
  // As in Kubernetes, the cost check also applies to stored (unchanged) expressions; only the
  // environment differs there, and this implementation has a single environment.
  api::DeviceClass old_class = Class({"device.driver == 'a'"});
  old_class.metadata.resourceVersion = "1";
  api::DeviceClass new_class = Class({"device.driver == 'a'", "bad("});
  new_class.metadata.resourceVersion = "1";
  api::FieldErrors errs;
  api::ValidateDeviceClass(new_class, errs, validators_);
  api::ValidateDeviceClassUpdate(new_class, old_class, errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_NE(errs.Messages()[0].find("spec.selectors[1].cel.expression: Invalid value"),
            std::string::npos);
}

}  // namespace
}  // namespace allot::cel

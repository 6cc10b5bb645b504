// The `device` variable and real drivers' selector expressions, against
// devices shaped like the ones dra-example-driver and NVIDIA's k8s-dra-driver-gpu publish.
#include <gtest/gtest.h>

#include "cel/testing/util.h"

namespace allot::cel {
namespace {

using testing::BoolAttr;
using testing::Cap;
using testing::IntAttr;
using testing::StringAttr;
using testing::VersionAttr;

// dra-example-driver (internal/profiles/gpu): driver gpu.example.com.
api::Device ExampleGpu() {
  api::Device d;
  d.name = "gpu-0";
  d.attributes["index"] = IntAttr(0);
  d.attributes["uuid"] = StringAttr("gpu-18db0e85-99e9-c746-8531-ffeb86328b39");
  d.attributes["model"] = StringAttr("LATEST-GPU-MODEL");
  d.attributes["driverVersion"] = VersionAttr("1.0.0");
  d.capacity["memory"] = Cap("80Gi");
  d.capacity["compute"] = Cap("100");
  return d;
}

// NVIDIA full GPU (cmd/gpu-kubelet-plugin/deviceinfo.go); `index` is no longer published.
api::Device NvidiaGpu(std::string product, std::string_view memory, std::string_view sms) {
  api::Device d;
  d.name = "gpu-0";
  d.attributes["type"] = StringAttr("gpu");
  d.attributes["uuid"] = StringAttr("GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c");
  d.attributes["productName"] = StringAttr(std::move(product));
  d.attributes["brand"] = StringAttr("Nvidia");
  d.attributes["architecture"] = StringAttr("Ampere");
  d.attributes["cudaComputeCapability"] = VersionAttr("8.0.0");
  d.attributes["driverVersion"] = VersionAttr("550.54.15");
  d.attributes["cudaDriverVersion"] = VersionAttr("12.4.0");
  d.attributes["resource.kubernetes.io/pciBusID"] = StringAttr("0000:07:00.0");
  d.attributes["resource.kubernetes.io/pcieRoot"] = StringAttr("pci0000:00");
  d.capacity["memory"] = Cap(memory);
  d.capacity["multiprocessors"] = Cap(sms);
  return d;
}

api::Device NvidiaMig(std::string profile, std::string_view memory, std::string_view sms) {
  api::Device d = NvidiaGpu("NVIDIA H100 NVL", memory, sms);
  d.name = "gpu-0-mig-1g12gb-0";
  d.attributes["type"] = StringAttr("mig");
  d.attributes["profile"] = StringAttr(std::move(profile));
  d.attributes["parentUUID"] = StringAttr("GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c");
  return d;
}

api::Device ComputeDomain(std::string type, std::optional<int64_t> id) {
  api::Device d;
  d.name = type + "-0";
  d.attributes["type"] = StringAttr(std::move(type));
  if (id) d.attributes["id"] = IntAttr(*id);
  return d;
}

struct DriverCase {
  const char* name;
  const char* expr;
  api::Device device;
  const char* driver;
  const char* want;  // "true", "false" or "error: <substring>"
};

TEST(DeviceTest, RealDriverExpressions) {
  api::Device a100 = NvidiaGpu("NVIDIA A100-SXM4-40GB", "40Gi", "108");
  api::Device t4 = NvidiaGpu("Tesla T4", "16Gi", "40");
  api::Device mig = NvidiaMig("1g.12gb", "12Gi", "16");
  api::Device mig_big = NvidiaMig("3g.47gb", "47Gi", "60");
  api::Device bools;
  bools.attributes["someBool"] = BoolAttr(true);
  bools.attributes["anotherBool"] = BoolAttr(false);
  api::Device sound;
  sound.attributes["subsystem"] = StringAttr("sound");
  api::Device no_subsystem;
  api::Device sharing;
  sharing.attributes["sharingStrategy"] = StringAttr("TimeSlicing");
  const char* gpu_test6 =
      "device.attributes['gpu.nvidia.com'].productName.lowerAscii().matches('^.*a100.*$') && "
      "(device.attributes['gpu.nvidia.com'].index == 0 || "
      "device.attributes['gpu.nvidia.com'].index == 2)";
  const std::vector<DriverCase> cases = {
      // dra-example-driver
      {"example class", "device.driver == 'gpu.example.com'", ExampleGpu(), "gpu.example.com",
       "true"},
      {"example class other driver", "device.driver == 'gpu.example.com'", ExampleGpu(),
       "gpu.nvidia.com", "false"},
      {"example model", "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'",
       ExampleGpu(), "gpu.example.com", "true"},
      {"example memory 4Gi",
       "device.capacity['gpu.example.com'].memory.compareTo(quantity('4Gi')) >= 0", ExampleGpu(),
       "gpu.example.com", "true"},
      {"example firstAvailable",
       "device.attributes['gpu.example.com'].model == 'BLEEDING-EDGE-GPU'", ExampleGpu(),
       "gpu.example.com", "false"},
      {"example memory 1Ti",
       "device.capacity['gpu.example.com'].memory.compareTo(quantity('1Ti')) >= 0", ExampleGpu(),
       "gpu.example.com", "false"},
      {"example semver",
       "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('0.9.0'))",
       ExampleGpu(), "gpu.example.com", "true"},
      {"example semver newer",
       "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.0.0'))",
       ExampleGpu(), "gpu.example.com", "false"},
      // NVIDIA device classes
      {"nvidia gpu class",
       "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
       a100, "gpu.nvidia.com", "true"},
      {"nvidia gpu class on mig",
       "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
       mig, "gpu.nvidia.com", "false"},
      {"nvidia mig class",
       "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
       mig, "gpu.nvidia.com", "true"},
      {"nvidia mig profile",
       "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig' "
       "&& device.attributes['gpu.nvidia.com'].profile == '1g.12gb'",
       mig, "gpu.nvidia.com", "true"},
      {"nvidia mig profile other",
       "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig' "
       "&& device.attributes['gpu.nvidia.com'].profile == '1g.12gb'",
       mig_big, "gpu.nvidia.com", "false"},
      // A full GPU has no `profile`, but `type == 'mig'` is false first.
      {"nvidia mig profile on gpu",
       "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig' "
       "&& device.attributes['gpu.nvidia.com'].profile == '1g.12gb'",
       a100, "gpu.nvidia.com", "false"},
      {"compute domain daemon",
       "device.driver == 'compute-domain.nvidia.com' && "
       "device.attributes['compute-domain.nvidia.com'].type == 'daemon'",
       ComputeDomain("daemon", std::nullopt), "compute-domain.nvidia.com", "true"},
      {"compute domain channel",
       "device.driver == 'compute-domain.nvidia.com' && "
       "device.attributes['compute-domain.nvidia.com'].type == 'channel' && "
       "device.attributes['compute-domain.nvidia.com'].id == 0",
       ComputeDomain("channel", 0), "compute-domain.nvidia.com", "true"},
      {"compute domain channel 1",
       "device.driver == 'compute-domain.nvidia.com' && "
       "device.attributes['compute-domain.nvidia.com'].type == 'channel' && "
       "device.attributes['compute-domain.nvidia.com'].id == 0",
       ComputeDomain("channel", 1), "compute-domain.nvidia.com", "false"},
      {"compute domain channel on daemon",
       "device.driver == 'compute-domain.nvidia.com' && "
       "device.attributes['compute-domain.nvidia.com'].type == 'channel' && "
       "device.attributes['compute-domain.nvidia.com'].id == 0",
       ComputeDomain("daemon", std::nullopt), "compute-domain.nvidia.com", "false"},
      {"multiprocessors < 30",
       "device.capacity['gpu.nvidia.com'].multiprocessors.isLessThan(quantity(\"30\"))", mig,
       "gpu.nvidia.com", "true"},
      {"multiprocessors < 30 on a100",
       "device.capacity['gpu.nvidia.com'].multiprocessors.isLessThan(quantity(\"30\"))", a100,
       "gpu.nvidia.com", "false"},
      {"multiprocessors and memory",
       "device.capacity['gpu.nvidia.com'].multiprocessors.isGreaterThan(quantity(\"10\")) && "
       "device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity(\"10Gi\"))",
       mig, "gpu.nvidia.com", "true"},
      {"multiprocessors and memory small",
       "device.capacity['gpu.nvidia.com'].multiprocessors.isGreaterThan(quantity(\"10\")) && "
       "device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity(\"10Gi\"))",
       NvidiaMig("1g.5gb", "5Gi", "14"), "gpu.nvidia.com", "false"},
      {"negative test",
       "device.attributes[\"gpu.nvidia.com\"].productName == \"NONEXISTENT-GPU-XYZ\"", a100,
       "gpu.nvidia.com", "false"},
      {"gpu-test6 on T4", gpu_test6, t4, "gpu.nvidia.com", "false"},
      {"gpu-test6 on A100", gpu_test6, a100, "gpu.nvidia.com", "error: no such key: index"},
      // Others
      {"bind",
       "cel.bind(dra, device.attributes[\"dra.example.com\"], dra.someBool && "
       "dra.anotherBool)",
       bools, "dra.example.com", "false"},
      {"liken.sh",
       "has(device.attributes[\"liken.sh\"].subsystem) && "
       "device.attributes[\"liken.sh\"].subsystem == \"sound\"",
       sound, "liken.sh", "true"},
      {"liken.sh without subsystem",
       "has(device.attributes[\"liken.sh\"].subsystem) && "
       "device.attributes[\"liken.sh\"].subsystem == \"sound\"",
       no_subsystem, "liken.sh", "false"},
      {"deckhouse", "!has(device.attributes[\"gpu.deckhouse.io\"].sharingStrategy)", no_subsystem,
       "gpu.deckhouse.io", "true"},
      {"deckhouse sharing", "!has(device.attributes[\"gpu.deckhouse.io\"].sharingStrategy)",
       sharing, "gpu.deckhouse.io", "false"},
  };
  for (const DriverCase& c : cases) {
    SCOPED_TRACE(c.name);
    Result<std::shared_ptr<const DeviceSelectorProgram>> p = CompileDeviceSelector(c.expr);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_LE((*p)->estimated_cost(), kCostLimit);
    EXPECT_EQ((*p)->expression(), c.expr);
    Result<bool> r = (*p)->Matches(c.driver, c.device);
    std::string want = c.want;
    if (want.rfind("error: ", 0) == 0) {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().message(), want.substr(7));
    } else {
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(*r, want == "true");
    }
  }
}

TEST(DeviceTest, Domains) {
  api::Device d = testing::TestDevice();
  auto m = [&](std::string_view e) { return testing::Match(e, d, testing::kTestDriver); };
  // Unprefixed names belong to the driver's domain; qualified names to their own.
  EXPECT_TRUE(*m("device.attributes['other.example.com'].family == 'ampere'"));
  EXPECT_TRUE(*m("!has(device.attributes['dra.example.com'].family)"));
  EXPECT_TRUE(*m("device.capacity['other.example.com'].slots.compareTo(quantity('4')) == 0"));
  // An unknown domain is an empty map; an unknown id an error.
  EXPECT_TRUE(*m("device.attributes['unknown.example.com'].size() == 0"));
  EXPECT_TRUE(*m("!('x' in device.attributes['unknown.example.com'])"));
  Result<bool> r = m("device.attributes['unknown.example.com'].x == 1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "no such key: x");
  r = m("device.attributes['dra.example.com']['nope'] == 1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "no such key: nope");
  // Enumeration.
  EXPECT_TRUE(*m("device.attributes.size() == 2 && 'other.example.com' in device.attributes"));
  EXPECT_TRUE(*m("device.attributes['dra.example.com'].size() == 4"));
  EXPECT_TRUE(*m("device.attributes['dra.example.com'].all(k, k.size() > 2)"));
  EXPECT_TRUE(*m("device.attributes.exists(dom, dom == 'other.example.com')"));
  EXPECT_TRUE(*m("'model' in device.attributes['dra.example.com']"));
  EXPECT_TRUE(*m("device.capacity['dra.example.com'].map(k, k) == ['memory']"));
  // Value types.
  EXPECT_TRUE(*m("device.attributes['dra.example.com'].index == 3"));
  EXPECT_TRUE(*m("device.attributes['dra.example.com'].shared == true"));
  EXPECT_TRUE(*m("device.attributes['dra.example.com'].driverVersion.major() == 1"));
  EXPECT_TRUE(*m("device.attributes['dra.example.com'].driverVersion == semver('1.2.3')"));
  EXPECT_TRUE(*m("device.driver == 'dra.example.com' && !device.allowMultipleAllocations"));
  d.allowMultipleAllocations = true;
  EXPECT_TRUE(*m("device.allowMultipleAllocations"));
  EXPECT_TRUE(*m("has(device.driver) && has(device.attributes)"));
}

TEST(DeviceTest, BadVersionAttributeIsAnErrorWhenRead) {
  api::Device d;
  d.attributes["v"] = VersionAttr("not-a-version");
  d.attributes["ok"] = IntAttr(1);
  EXPECT_TRUE(*testing::Match("device.attributes['x'].ok == 1", d, "x"));
  Result<bool> r = testing::Match("device.attributes['x'].v.major() == 1", d, "x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("parse semantic version"), std::string::npos);
  EXPECT_TRUE(*testing::Match("'v' in device.attributes['x']", d, "x"));
}

TEST(DeviceTest, CompileErrors) {
  struct ErrCase {
    const char* expr;
    const char* message;
  };
  const ErrCase cases[] = {
      {"foo == 1",
       "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n"
       " | foo == 1\n"
       " | ^"},
      {"device.foo == 1",
       "compilation failed: ERROR: <input>:1:7: undefined field 'foo'\n"
       " | device.foo == 1\n"
       " | ......^"},
      {"device.driver == 1",
       "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied "
       "to '(string, int)'\n"
       " | device.driver == 1\n"
       " | ..............^"},
      {"device.capacity['a'].b < quantity('1')",
       "compilation failed: ERROR: <input>:1:24: found no matching overload for '_<_' applied "
       "to '(kubernetes.Quantity, kubernetes.Quantity)'\n"
       " | device.capacity['a'].b < quantity('1')\n"
       " | .......................^"},
      {"device.driver.startsWith(1)",
       "compilation failed: ERROR: <input>:1:25: found no matching overload for 'startsWith' "
       "applied to 'string.(int)'\n"
       " | device.driver.startsWith(1)\n"
       " | ........................^"},
      {"nosuch(1)",
       "compilation failed: ERROR: <input>:1:7: undeclared reference to 'nosuch' (in container "
       "'')\n"
       " | nosuch(1)\n"
       " | ......^"},
      {"true &&\n  foo",
       "compilation failed: ERROR: <input>:2:3: undeclared reference to 'foo' (in container '')\n"
       " |   foo\n"
       " | ..^"},
      {"'é' == x",
       "compilation failed: ERROR: <input>:1:8: undeclared reference to 'x' (in container '')\n"
       " | 'é' == x\n"
       " | .\xEF\xBC\x8E.....^"},
  };
  for (const ErrCase& c : cases) {
    SCOPED_TRACE(c.expr);
    Result<std::shared_ptr<const DeviceSelectorProgram>> p = CompileDeviceSelector(c.expr);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(p.status().message(), c.message);
  }
}

TEST(DeviceTest, MultipleErrorsAreSorted) {
  Result<std::shared_ptr<const DeviceSelectorProgram>> p = CompileDeviceSelector("b == 1 || a");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'b' (in container "
            "'')\n | b == 1 || a\n | ^\n"
            "ERROR: <input>:1:11: undeclared reference to 'a' (in container '')\n"
            " | b == 1 || a\n | ..........^");
}

}  // namespace
}  // namespace allot::cel

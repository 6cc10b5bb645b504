// Validation of the core kinds: each bad input with the exact messages Kubernetes gives.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "api/codec/codec.h"
#include "api/core/strategy.h"
#include "api/core/types.h"
#include "api/machinery/meta_validation.h"
#include "api/machinery/resources.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::kSubdomainMsg;

using Messages = std::vector<std::string>;

const std::string kDnsLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string kQualifiedNameMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const std::string kUpdatable =
    "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
    "to 1 if it was previously negative)";
const std::string kRequiredAffinity =
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";

template <class T>
T Decode(std::string_view json) {
  DecodeOptions opts;
  opts.strict = true;
  opts.expected = &T::Type();
  auto r = DecodeJson(json, opts);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return T{};
  return *As<T>(*r->object);
}

Pod ValidPod() {
  Pod pod = Decode<Pod>(R"json({
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"},
                 "resourceVersion": "1"},
    "spec": {
      "volumes": [{"name": "data", "emptyDir": {}}],
      "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}],
      "initContainers": [{"name": "init", "image": "busybox"}],
      "containers": [{"name": "app", "image": "nginx:1.25", "ports": [{"containerPort": 80}],
                      "env": [{"name": "A", "value": "1"}],
                      "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                      "resources": {"limits": {"cpu": "1", "memory": "1Gi"},
                                    "claims": [{"name": "gpu"}]}}],
      "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
          {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]
    }})json");
  DefaultPod(pod);
  return pod;
}

struct PodCase {
  const char* name;
  std::function<void(Pod&)> mutate;
  Messages want;
};

Messages PodErrors(const Pod& pod) {
  FieldErrors errs;
  ValidatePod(pod, errs);
  return errs.Messages();
}

TEST(PodValidationTest, ValidPodHasNoErrors) { EXPECT_EQ(PodErrors(ValidPod()), Messages{}); }

TEST(PodValidationTest, BadInputs) {
  const std::string big(kTotalAnnotationSizeLimitBytes, 'x');
  const std::string long_name(250, 'a');
  std::vector<PodCase> cases = {
      // metadata
      {"no name",
       [](Pod& p) { p.metadata.name = ""; },
       {"metadata.name: Required value: name or generateName is required"}},
      {"bad name",
       [](Pod& p) { p.metadata.name = "Web_1"; },
       {"metadata.name: Invalid value: \"Web_1\": " + kSubdomainMsg,
        // The claim generated for the template would be named <pod>-<claim>.
        "spec.resourceClaims[0].name: Invalid value: \"Web_1-gpu\": final ResourceClaim name: " +
            kSubdomainMsg}},
      {"generated name", [](Pod& p) { p.metadata.generateName = "web-"; }, {}},
      {"bad generateName",
       [](Pod& p) { p.metadata.generateName = "Web_"; },
       {"metadata.generateName: Invalid value: \"Web_\": " + kSubdomainMsg}},
      {"no namespace",
       [](Pod& p) { p.metadata.namespace_ = ""; },
       {"metadata.namespace: Required value"}},
      {"bad label key",
       [](Pod& p) { p.metadata.labels["bad key!"] = "v"; },
       {"metadata.labels: Invalid value: \"bad key!\": " + kQualifiedNameMsg}},
      {"bad label value",
       [](Pod& p) { p.metadata.labels["app"] = "-x"; },
       {"metadata.labels: Invalid value: \"-x\": " + kLabelValueMsg}},
      {"annotations too big",
       [&](Pod& p) { p.metadata.annotations["k"] = big; },
       {"metadata.annotations: Too long: may not be more than 262144 bytes"}},
      {"empty owner reference",
       [](Pod& p) { p.metadata.ownerReferences.push_back({}); },
       {"metadata.ownerReferences.apiVersion: Invalid value: \"\": version must not be empty",
        "metadata.ownerReferences.kind: Invalid value: \"\": must not be empty",
        "metadata.ownerReferences.name: Invalid value: \"\": must not be empty",
        "metadata.ownerReferences.uid: Invalid value: \"\": must not be empty"}},
      {"unqualified finalizer",
       [](Pod& p) {
         p.metadata.finalizers = {"example.com/x", "bad"};
       },
       {"metadata.finalizers[1]: Invalid value: \"bad\": name is neither a standard finalizer "
        "name nor is it fully qualified"}},
      // containers
      {"no containers",
       [](Pod& p) { p.spec.containers.clear(); },
       {"spec.containers: Required value"}},
      {"duplicate container",
       [](Pod& p) { p.spec.containers.push_back(p.spec.containers[0]); },
       {"spec.containers[1].name: Duplicate value: \"app\""}},
      {"init container reuses a name",
       [](Pod& p) { p.spec.initContainers[0].name = "app"; },
       {"spec.initContainers[0].name: Duplicate value: \"app\""}},
      {"bad container name",
       [](Pod& p) { p.spec.containers[0].name = "App"; },
       {"spec.containers[0].name: Invalid value: \"App\": " + kDnsLabelMsg}},
      {"no image",
       [](Pod& p) { p.spec.containers[0].image = ""; },
       {"spec.containers[0].image: Required value"}},
      {"request above limit",
       [](Pod& p) { p.spec.containers[0].resources.requests["cpu"] = Quantity::FromInt(2); },
       {"spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or "
        "equal to cpu limit of 1"}},
      {"negative quantities",
       [](Pod& p) {
         p.spec.containers[0].resources.limits["memory"] = Quantity::FromInt(-1);
         p.spec.containers[0].resources.requests["memory"] = Quantity::FromInt(-1);
       },
       {"spec.containers[0].resources.limits[memory]: Invalid value: \"-1\": must be greater "
        "than or equal to 0",
        "spec.containers[0].resources.requests[memory]: Invalid value: \"-1\": must be greater "
        "than or equal to 0"}},
      {"extended resource request differs from limit",
       [](Pod& p) {
         p.spec.containers[0].resources.limits["example.com/gpu"] = Quantity::FromInt(2);
         p.spec.containers[0].resources.requests["example.com/gpu"] = Quantity::FromInt(1);
       },
       {"spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to "
        "example.com/gpu limit of 2"}},
      {"unknown resource",
       [](Pod& p) { p.spec.containers[0].resources.limits["foo"] = Quantity::FromInt(1); },
       {"spec.containers[0].resources.limits[foo]: Invalid value: \"foo\": must be a standard "
        "resource type or fully qualified",
        "spec.containers[0].resources.limits[foo]: Invalid value: \"foo\": must be a standard "
        "resource for containers"}},
      {"container port",
       [](Pod& p) {
         p.spec.containers[0].ports[0].containerPort = 0;
         p.spec.containers[0].ports[0].protocol = "HTTP";
       },
       {"spec.containers[0].ports[0].containerPort: Required value",
        "spec.containers[0].ports[0].protocol: Unsupported value: \"HTTP\": supported values: "
        "\"SCTP\", \"TCP\", \"UDP\""}},
      {"host port conflict",
       [](Pod& p) {
         ContainerPort port{.hostPort = 8080, .containerPort = 80, .protocol = "TCP"};
         p.spec.containers[0].ports = {port, port};
       },
       {"spec.containers[0].ports[1].hostPort: Duplicate value: \"/TCP/8080\""}},
      {"env name",
       [](Pod& p) { p.spec.containers[0].env[0].name = "A=B"; },
       {"spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable "
        "name must consist only of printable ASCII characters other than '='"}},
      {"sidecar restart policy",
       [](Pod& p) { p.spec.initContainers[0].rare.edit().restartPolicy = "Never"; },
       {"spec.initContainers[0].restartPolicy: Unsupported value: \"Never\": supported values: "
        "\"Always\""}},
      {"restart policy on a regular container",
       [](Pod& p) { p.spec.containers[0].rare.edit().restartPolicy = "Always"; },
       {"spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"}},
      {"probe on a plain init container",
       [](Pod& p) { p.spec.initContainers[0].rare.edit().readinessProbe.json = R"({"exec":{}})"; },
       {"spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers"}},
      {"probe on a sidecar",
       [](Pod& p) {
         p.spec.initContainers[0].rare.edit().restartPolicy = "Always";
         p.spec.initContainers[0].rare.edit().readinessProbe.json = R"({"exec":{}})";
       },
       {}},
      // volumes
      {"mount of a missing volume",
       [](Pod& p) { p.spec.containers[0].volumeMounts[0].name = "x"; },
       {"spec.containers[0].volumeMounts[0].name: Invalid value: \"x\": not found"}},
      {"duplicate volume",
       [](Pod& p) { p.spec.volumes.push_back(p.spec.volumes[0]); },
       {"spec.volumes[1].name: Duplicate value: \"data\""}},
      {"two volume sources",
       [](Pod& p) { p.spec.volumes[0].hostPath.json = R"({"path":"/"})"; },
       {"spec.volumes[0].emptyDir: Forbidden: may not specify more than 1 volume type",
        "spec.containers[0].volumeMounts[0].name: Invalid value: \"data\": not found"}},
      {"no volume source",
       [](Pod& p) { p.spec.volumes[0].emptyDir = {}; },
       {"spec.volumes[0]: Required value: must specify a volume type",
        "spec.containers[0].volumeMounts[0].name: Invalid value: \"data\": not found"}},
      // resource claims
      {"claim with both sources",
       [](Pod& p) { p.spec.resourceClaims[0].resourceClaimName = "shared"; },
       {"spec.resourceClaims[0]: Invalid value: \"gpu\": at most one of `resourceClaimName` or "
        "`resourceClaimTemplateName` may be specified"}},
      {"claim without source",
       [](Pod& p) { p.spec.resourceClaims[0].resourceClaimTemplateName.reset(); },
       {"spec.resourceClaims[0]: Invalid value: \"gpu\": must specify one of: "
        "`resourceClaimName`, `resourceClaimTemplateName`"}},
      {"duplicate claim",
       [](Pod& p) { p.spec.resourceClaims.push_back({.name = "gpu", .resourceClaimName = "c"}); },
       {"spec.resourceClaims[1].name: Duplicate value: \"gpu\""}},
      {"bad claim name",
       [](Pod& p) { p.spec.resourceClaims[0].name = "GPU"; },
       {"spec.resourceClaims[0].name: Invalid value: \"GPU\": " + kDnsLabelMsg,
        "spec.containers[0].resources.claims[0]: Invalid value: \"gpu\": must be one of the "
        "names in pod.spec.resourceClaims: GPU"}},
      {"container claim without pod claims",
       [](Pod& p) { p.spec.resourceClaims.clear(); },
       {"spec.containers[0].resources.claims[0]: Invalid value: \"gpu\": must be one of the "
        "names in pod.spec.resourceClaims which is empty"}},
      {"duplicate container claim",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"gpu", ""});
       },
       {"spec.containers[0].resources.claims[1]: Duplicate value: \"gpu\""}},
      {"generated claim name too long",
       [&](Pod& p) { p.metadata.name = long_name; },
       {"spec.resourceClaims[0].name: Invalid value: \"" + long_name +
        "-gpu\": final ResourceClaim name: must be no more than 253 bytes"}},
      // tolerations
      {"Exists with a value",
       [](Pod& p) { p.spec.tolerations[0].value = "v"; },
       {"spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when "
        "`operator` is 'Exists'"}},
      {"bad toleration effect",
       [](Pod& p) { p.spec.tolerations[0].effect = "Sometimes"; },
       {"spec.tolerations[0].effect: Unsupported value: \"Sometimes\": supported values: "
        "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""}},
      {"empty key needs Exists",
       [](Pod& p) { p.spec.tolerations[0] = {.operator_ = "Equal"}; },
       {"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when "
        "`key` is empty, which means \"match all values and all keys\""}},
      {"bad toleration operator",
       [](Pod& p) { p.spec.tolerations[0].operator_ = "Gt"; },
       {"spec.tolerations[0].operator: Unsupported value: \"Gt\": supported values: \"Equal\", "
        "\"Exists\""}},
      {"tolerationSeconds without NoExecute",
       [](Pod& p) { p.spec.tolerations[0].tolerationSeconds = 10; },
       {"spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' "
        "when `tolerationSeconds` is set"}},
      // node affinity
      {"node selector operator",
       [](Pod& p) {
         p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution
             ->nodeSelectorTerms[0]
             .matchExpressions[0]
             .operator_ = "Near";
       },
       {kRequiredAffinity +
        "[0].matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector "
        "operator"}},
      {"In without values",
       [](Pod& p) {
         p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution
             ->nodeSelectorTerms[0]
             .matchExpressions[0]
             .values.clear();
       },
       {kRequiredAffinity + "[0].matchExpressions[0].values: Required value: must be specified "
                            "when `operator` is 'In' or 'NotIn'"}},
      {"Exists with values",
       [](Pod& p) {
         p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution
             ->nodeSelectorTerms[0]
             .matchExpressions[0]
             .operator_ = "Exists";
       },
       {kRequiredAffinity + "[0].matchExpressions[0].values: Forbidden: may not be specified "
                            "when `operator` is 'Exists' or 'DoesNotExist'"}},
      {"no node selector terms",
       [](Pod& p) {
         p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution
             ->nodeSelectorTerms.clear();
       },
       {kRequiredAffinity + ": Required value: must have at least one node selector term"}},
      {"bad match field",
       [](Pod& p) {
         p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution
             ->nodeSelectorTerms[0]
             .matchFields = {{"metadata.labels", "In", {"x"}}};
       },
       {kRequiredAffinity + "[0].matchFields[0].key: Invalid value: \"metadata.labels\": not a "
                            "valid field selector key"}},
      // pod affinity
      {"empty topology key",
       [](Pod& p) {
         p.spec.affinity->podAntiAffinity = PodAntiAffinity{};
         p.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution = {
             PodAffinityTerm{}};
       },
       {"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "topologyKey: Required value: can not be empty",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "topologyKey: Invalid value: \"\": name part must be non-empty",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "topologyKey: Invalid value: \"\": " +
            kQualifiedNameMsg}},
      {"affinity weight and matchLabelKeys",
       [](Pod& p) {
         p.spec.affinity->podAffinity = PodAffinity{};
         WeightedPodAffinityTerm w;
         w.podAffinityTerm.topologyKey = "zone";
         w.podAffinityTerm.matchLabelKeys = {"app"};
         p.spec.affinity->podAffinity->preferredDuringSchedulingIgnoredDuringExecution = {w};
       },
       {"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
        "Invalid value: 0: must be in the range 1-100",
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
        "podAffinityTerm.matchLabelKeys: Forbidden: must not be specified when labelSelector is "
        "not set"}},
      // topology spread
      {"spread skew and action",
       [](Pod& p) {
         p.spec.topologySpreadConstraints[0].maxSkew = 0;
         p.spec.topologySpreadConstraints[0].whenUnsatisfiable = "Maybe";
       },
       {"spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
        "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Maybe\": "
        "supported values: \"DoNotSchedule\", \"ScheduleAnyway\""}},
      {"duplicate spread constraint",
       [](Pod& p) {
         p.spec.topologySpreadConstraints.push_back(p.spec.topologySpreadConstraints[0]);
       },
       {"spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "
        "\"{zone, DoNotSchedule}\""}},
      {"minDomains with ScheduleAnyway",
       [](Pod& p) {
         p.spec.topologySpreadConstraints[0].whenUnsatisfiable = "ScheduleAnyway";
         p.spec.topologySpreadConstraints[0].minDomains = 2;
       },
       {"spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use "
        "minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"}},
      // other spec fields
      {"restart policy",
       [](Pod& p) { p.spec.restartPolicy = "Sometimes"; },
       {"spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
        "\"OnFailure\", \"Never\""}},
      {"no dns policy", [](Pod& p) { p.spec.dnsPolicy = ""; }, {"spec.dnsPolicy: Required value"}},
      {"ephemeral containers on create",
       [](Pod& p) { p.spec.rare.edit().ephemeralContainers.push_back({R"({"name":"debug"})"}); },
       {"spec.ephemeralContainers: Forbidden: cannot be set on create"}},
      {"active deadline",
       [](Pod& p) { p.spec.rare.edit().activeDeadlineSeconds = 0; },
       {"spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, "
        "inclusive"}},
      {"node name",
       [](Pod& p) { p.spec.nodeName = "Node_1"; },
       {"spec.nodeName: Invalid value: \"Node_1\": " + kSubdomainMsg}},
      {"node selector value",
       [](Pod& p) { p.spec.nodeSelector["zone"] = "a b"; },
       {"spec.nodeSelector: Invalid value: \"a b\": " + kLabelValueMsg}},
      {"duplicate scheduling gate",
       [](Pod& p) {
         p.spec.schedulingGates = {{"example.com/g"}, {"example.com/g"}};
       },
       {"spec.schedulingGates[1]: Duplicate value: \"example.com/g\""}},
      {"preemption policy",
       [](Pod& p) { p.spec.preemptionPolicy = "Sometimes"; },
       {"spec.preemptionPolicy: Unsupported value: \"Sometimes\": supported values: "
        "\"PreemptLowerPriority\", \"Never\""}},
      {"os",
       [](Pod& p) { p.spec.os = PodOS{"plan9"}; },
       {"spec.os.name: Unsupported value: \"plan9\": supported values: \"linux\", \"windows\""}},
      {"host network port",
       [](Pod& p) {
         p.spec.hostNetwork = true;
         p.spec.containers[0].ports[0].hostPort = 81;
       },
       {"spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` "
        "when `hostNetwork` is true"}},
      {"pod-level claims",
       [](Pod& p) {
         p.spec.resources = ResourceRequirements{.claims = {{"gpu", ""}}};
       },
       {"spec.resources.claims: Forbidden: claims may not be set for Resources at pod-level"}},
      {"resize policy with restartPolicy Never",
       [](Pod& p) {
         p.spec.restartPolicy = "Never";
         p.spec.containers[0].rare.edit().resizePolicy = {{"cpu", "RestartContainer"}};
       },
       {"spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be "
        "'NotRequired' when `restartPolicy` is 'Never'"}},
  };
  for (const PodCase& c : cases) {
    Pod pod = ValidPod();
    c.mutate(pod);
    EXPECT_EQ(PodErrors(pod), c.want) << c.name;
  }
}

TEST(PodValidationTest, StatusMessageAndHook) {
  Pod pod = ValidPod();
  pod.spec.containers[0].image = "";
  const ResourceInfo* pods = ResourceRegistry::Default().Find("", "v1", "pods");
  FieldErrors errs;
  pods->validate(pod, errs, {});
  Status s = errs.ToStatus("Pod", "", pod.metadata.name);
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_EQ(s.message(), "Pod \"web\" is invalid: spec.containers[0].image: Required value");
  ASSERT_EQ(s.details().causes.size(), 1u);
  EXPECT_EQ(s.details().causes[0].reason, "FieldValueRequired");
  EXPECT_EQ(s.details().causes[0].field, "spec.containers[0].image");
}

// --- updates ----------------------------------------------------------------------------------

Messages PodUpdateErrors(const Pod& pod, const Pod& old) {
  FieldErrors errs;
  ValidatePodUpdate(pod, old, errs);
  return errs.Messages();
}

TEST(PodValidationTest, Updates) {
  const Pod old = ValidPod();
  struct Case {
    const char* name;
    std::function<void(Pod&)> mutate;
    Messages want;
  };
  std::vector<Case> cases = {
      {"image", [](Pod& p) { p.spec.containers[0].image = "nginx:1.26"; }, {}},
      {"labels", [](Pod& p) { p.metadata.labels["v"] = "2"; }, {}},
      {"lower deadline", [](Pod& p) { p.spec.rare.edit().activeDeadlineSeconds = 50; }, {}},
      {"added toleration",
       [](Pod& p) { p.spec.tolerations.push_back({.key = "x", .operator_ = "Exists"}); },
       {}},
      {"node name",
       [](Pod& p) { p.spec.nodeName = "node-1"; },
       {kUpdatable + "\n  spec.nodeName: \"\" -> \"node-1\""}},
      {"removed toleration",
       [](Pod& p) { p.spec.tolerations.clear(); },
       {"spec.tolerations: Forbidden: existing toleration can not be modified except its "
        "tolerationSeconds"}},
      {"added container",
       [](Pod& p) { p.spec.containers.push_back(p.spec.containers[0]); },
       {"spec.containers: Forbidden: pod updates may not add or remove containers"}},
      {"name",
       [](Pod& p) { p.metadata.name = "other"; },
       {"metadata.name: Invalid value: \"other\": field is immutable"}},
      {"added scheduling gate",
       [](Pod& p) { p.spec.schedulingGates = {{"g"}}; },
       {"spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new "
        "scheduling gate 'g'"}},
  };
  for (const Case& c : cases) {
    Pod pod = old;
    c.mutate(pod);
    EXPECT_EQ(PodUpdateErrors(pod, old), c.want) << c.name;
  }
}

TEST(PodValidationTest, ResourceChangeNamesTheField) {
  const Pod old = ValidPod();
  Pod pod = old;
  pod.spec.containers[0].resources.limits["cpu"] = Quantity::FromInt(2);
  Messages m = PodUpdateErrors(pod, old);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].rfind(kUpdatable + "\n  spec.containers: [{\"name\":\"app\"", 0), 0u) << m[0];
  EXPECT_NE(m[0].find(" -> [{"), std::string::npos) << m[0];
  EXPECT_NE(m[0].find("\"limits\":{\"cpu\":\"2\""), std::string::npos) << m[0];
}

TEST(PodValidationTest, DeadlineAndGateUpdates) {
  Pod old = ValidPod();
  old.spec.rare.edit().activeDeadlineSeconds = 100;
  old.spec.schedulingGates = {{"a"}, {"b"}};
  Pod pod = old;
  pod.spec.rare.edit().activeDeadlineSeconds = 200;
  EXPECT_EQ(PodUpdateErrors(pod, old),
            Messages{"spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal "
                     "to previous value"});
  pod = old;
  pod.spec.schedulingGates = {{"a"}};
  pod.spec.nodeSelector["zone"] = "a";  // gated pods may gain node selector entries
  EXPECT_EQ(PodUpdateErrors(pod, old), Messages{});
  pod.spec.schedulingGates = {{"a"}, {"c"}};
  EXPECT_EQ(PodUpdateErrors(pod, old),
            Messages{"spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but "
                     "found new scheduling gate 'c'"});
}

TEST(PodValidationTest, StatusUpdates) {
  Pod old = ValidPod();
  old.spec.restartPolicy = "Never";
  old.status.containerStatuses.push_back(
      {.name = "app", .state = {.terminated = ContainerStateTerminated{.exitCode = 1}}});
  Pod pod = old;
  pod.status.qosClass = "Guaranteed";
  pod.status.nominatedNodeName = "Bad_Node";
  pod.status.conditions.push_back({.type = "bad type!", .status = "True"});
  pod.status.resourceClaimStatuses = {{"nic", std::nullopt}};
  pod.status.containerStatuses[0].state = {.running = ContainerStateRunning{}};
  pod.status.podIPs = {{"10.0.0.300"}};
  FieldErrors errs;
  ValidatePodStatusUpdate(pod, old, errs);
  EXPECT_EQ(
      errs.Messages(),
      (Messages{"metadata.conditions[0].Type: Invalid value: \"bad type!\": " + kQualifiedNameMsg,
                "status.nominatedNodeName: Invalid value: \"Bad_Node\": " + kSubdomainMsg,
                "status.qosClass: Invalid value: \"Guaranteed\": field is immutable",
                "status.containerStatuses[0].state: Forbidden: may not be transitioned to "
                "non-terminated state",
                "status.resourceClaimStatuses[0].name: Invalid value: \"nic\": must match "
                "the name of an entry in `spec.resourceClaims`",
                "status.podIPs[0]: Invalid value: \"10.0.0.300\": must be a valid IP "
                "address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}));
}

TEST(MetaValidationTest, NoNewFinalizersWhileDeleting) {
  ObjectMeta old;
  old.name = "x";
  old.rare.edit().deletionTimestamp = Time::FromUnixSeconds(1);
  old.finalizers = {"a/b"};
  ObjectMeta now = old;
  now.finalizers = {"a/b", "x/y", "c/d"};
  FieldErrors errs;
  ValidateObjectMetaUpdate(now, old, errs);
  EXPECT_EQ(errs.Messages(),
            Messages{"metadata.finalizers: Forbidden: no new finalizers can be added if the "
                     "object is being deleted, found new finalizers []string{\"c/d\", \"x/y\"}"});
}

TEST(MetaValidationTest, GenerateNameMayEndInDash) {
  EXPECT_TRUE(NameIsDnsSubdomain("web-", true).empty());
  EXPECT_FALSE(NameIsDnsSubdomain("web-", false).empty());
  EXPECT_EQ(NameIsPathSegment("..", false), std::vector<std::string>{"may not be '..'"});
}

// --- nodes, events, leases, namespaces, bindings ----------------------------------------------

Node ValidNode() {
  Node node = Decode<Node>(R"json({
    "metadata": {"name": "node-1", "resourceVersion": "1"},
    "spec": {"podCIDRs": ["10.244.1.0/24", "fd00:1::/64"], "providerID": "p://1",
             "taints": [{"key": "gpu", "value": "a100", "effect": "NoSchedule"}]},
    "status": {"capacity": {"cpu": "8", "example.com/gpu": "4"}}})json");
  DefaultNode(node);
  return node;
}

Messages NodeErrors(const Node& n) {
  FieldErrors errs;
  ValidateNode(n, errs);
  return errs.Messages();
}

TEST(NodeValidationTest, BadInputs) {
  EXPECT_EQ(NodeErrors(ValidNode()), Messages{});
  struct Case {
    const char* name;
    std::function<void(Node&)> mutate;
    Messages want;
  };
  std::vector<Case> cases = {
      {"namespace",
       [](Node& n) { n.metadata.namespace_ = "default"; },
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"taint effect",
       [](Node& n) { n.spec.taints[0].effect = "Sometimes"; },
       {"metadata.taints[0].effect: Unsupported value: \"Sometimes\": supported values: "
        "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""}},
      {"missing taint effect",
       [](Node& n) { n.spec.taints[0].effect = ""; },
       {"metadata.taints[0].effect: Required value"}},
      {"duplicate taint",
       [](Node& n) { n.spec.taints.push_back(n.spec.taints[0]); },
       {"metadata.taints[1]: Duplicate value: \"gpu:NoSchedule\""}},
      {"negative capacity",
       [](Node& n) { n.status.capacity["cpu"] = Quantity::FromInt(-1); },
       {"status.capacity.cpu: Invalid value: \"-1\": must be greater than or equal to 0"}},
      {"fractional device count",
       [](Node& n) { n.status.allocatable["example.com/gpu"] = Quantity::FromMilli(500); },
       {"status.allocatable.example.com/gpu: Invalid value: \"500m\": must be an integer"}},
      {"two CIDRs of one family",
       [](Node& n) { n.spec.podCIDRs[1] = "10.244.2.0/24"; },
       {"spec.podCIDRs: Invalid value: \"10.244.1.0/24,10.244.2.0/24\": may specify no more "
        "than one CIDR for each IP family"}},
      {"bad CIDR",
       [](Node& n) { n.spec.podCIDRs = {"10.244.1.0/33"}; },
       {"spec.podCIDRs[0]: Invalid value: \"10.244.1.0/33\": must be a valid CIDR value, (e.g. "
        "10.9.8.0/24 or 2001:db8::/64)"}},
  };
  for (const Case& c : cases) {
    Node node = ValidNode();
    c.mutate(node);
    EXPECT_EQ(NodeErrors(node), c.want) << c.name;
  }
}

TEST(NodeValidationTest, Updates) {
  const Node old = ValidNode();
  Node node = old;
  node.spec.unschedulable = true;
  node.spec.taints.clear();
  node.metadata.labels["x"] = "y";
  FieldErrors ok;
  ValidateNodeUpdate(node, old, ok);
  EXPECT_TRUE(ok.empty());

  node.spec.podCIDRs = {"10.0.0.0/24"};
  node.spec.providerID = "p://2";
  node.status.addresses = {{"InternalIP", "10.0.0.1"}, {"InternalIP", "10.0.0.1"}};
  FieldErrors errs;
  ValidateNodeUpdate(node, old, errs);
  EXPECT_EQ(errs.Messages(),
            (Messages{"status.addresses[1]: Duplicate value: \"10.0.0.1\"",
                      "spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "
                      "\"\" to valid",
                      "spec.providerID: Forbidden: node updates may not change providerID except "
                      "from \"\" to valid"}));
}

TEST(EventValidationTest, LegacyRules) {
  Event e;
  e.metadata = {.name = "web.1", .namespace_ = "default"};
  e.involvedObject = {.kind = "Pod", .namespace_ = "default", .name = "web"};
  FieldErrors ok;
  ValidateEvent(e, ok);
  EXPECT_TRUE(ok.empty()) << ok.Messages()[0];

  e.metadata.name = "a/b";
  e.involvedObject.namespace_ = "other";
  FieldErrors errs;
  ValidateEvent(e, errs);
  EXPECT_EQ(errs.Messages(),
            (Messages{"metadata.name: Invalid value: \"a/b\": may not contain '/'",
                      "involvedObject.namespace: Invalid value: \"other\": does not match "
                      "event.namespace"}));

  Event fresh;  // with eventTime, the events.k8s.io fields are required
  fresh.metadata = {.name = "n.1", .namespace_ = "default"};
  fresh.eventTime = MicroTime{Time::FromUnixSeconds(1)};
  fresh.message = std::string(1025, 'm');
  FieldErrors errs2;
  ValidateEvent(fresh, errs2);
  EXPECT_EQ(errs2.Messages(),
            (Messages{"reportingComponent: Required value",
                      "reportingComponent: Invalid value: \"\": name part must be non-empty",
                      "reportingComponent: Invalid value: \"\": " + kQualifiedNameMsg,
                      "reportingInstance: Required value", "action: Required value",
                      "reason: Required value",
                      "message: Invalid value: \"\": can have at most 1024 characters"}));
}

TEST(LeaseValidationTest, Spec) {
  Lease l;
  l.metadata = {.name = "node-1", .namespace_ = "kube-node-lease"};
  l.spec.holderIdentity = "node-1";
  l.spec.leaseDurationSeconds = 40;
  FieldErrors ok;
  ValidateLease(l, ok);
  EXPECT_TRUE(ok.empty());

  l.spec.leaseDurationSeconds = 0;
  l.spec.leaseTransitions = -1;
  l.spec.preferredHolder = "node-2";
  FieldErrors errs;
  ValidateLease(l, errs);
  EXPECT_EQ(errs.Messages(),
            (Messages{"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
                      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal "
                      "to 0",
                      "spec.preferredHolder: Forbidden: may only be specified if `strategy` is "
                      "defined"}));

  l.spec = {.strategy = "Newest"};
  FieldErrors errs2;
  ValidateLease(l, errs2);
  EXPECT_EQ(errs2.Messages(),
            Messages{"spec.strategy.strategy: Unsupported value: \"Newest\": supported values: "
                     "\"OldestEmulationVersion\""});
}

TEST(NamespaceValidationTest, NamesAndFinalizers) {
  Namespace ns;
  ns.metadata.name = "a.b";
  ns.spec.finalizers = {"kubernetes", "custom"};
  FieldErrors errs;
  ValidateNamespace(ns, errs);
  EXPECT_EQ(errs.Messages(),
            (Messages{"metadata.name: Invalid value: \"a.b\": must not contain dots",
                      "spec.finalizers: Invalid value: \"custom\": name is neither a standard "
                      "finalizer name nor is it fully qualified"}));
}

TEST(BindingValidationTest, Target) {
  Binding b;
  FieldErrors errs;
  ValidateBinding(b, errs);
  EXPECT_EQ(errs.Messages(), Messages{"target.name: Required value"});
  b.target = {.kind = "Pod", .name = "x"};
  FieldErrors errs2;
  ValidateBinding(b, errs2);
  EXPECT_EQ(errs2.Messages(), Messages{"target.kind: Unsupported value: \"Pod\": supported "
                                       "values: \"Node\", \"<empty>\""});
}

}  // namespace
}  // namespace allot::api

// PATCH in its four content types, on the main resource and on status; binding and eviction.
#include "apiserver/testing/server_fixture.h"

namespace allot::apiserver {
namespace {

using PatchTest = ApiServerTest;

std::string PodPath(std::string_view name) {
  return "/api/v1/namespaces/default/pods/" + std::string(name);
}

TEST_F(PatchTest, MergePatch) {
  CreatePod("p1");
  auto res =
      Patch(PodPath("p1"), R"({"metadata":{"labels":{"x":"1"}}})", "application/merge-patch+json");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(J(res.body)["/metadata/labels/x"], "1");
}

TEST_F(PatchTest, StrategicMergePatchMergesContainersByName) {
  CreatePod("p1");
  auto res = Patch(PodPath("p1"), R"({"spec":{"containers":[{"name":"c","image":"nginx"}]}})",
                   "application/strategic-merge-patch+json");
  ASSERT_EQ(res.status, 200) << res.body;
  J p(res.body);
  EXPECT_EQ(p.Size("/spec/containers"), 1u);
  EXPECT_EQ(p["/spec/containers/0/image"], "nginx");
}

TEST_F(PatchTest, JsonPatch) {
  CreatePod("p1");
  auto res = Patch(PodPath("p1"), R"([{"op":"add","path":"/metadata/labels","value":{"k":"v"}}])",
                   "application/json-patch+json");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(J(res.body)["/metadata/labels/k"], "v");
  auto failed = Patch(PodPath("p1"), R"([{"op":"remove","path":"/spec/nothing"}])",
                      "application/json-patch+json");
  EXPECT_EQ(failed.status, 422) << failed.body;
}

TEST_F(PatchTest, UnsupportedPatchTypeIs415) {
  CreatePod("p1");
  auto res = Patch(PodPath("p1"), "{}", "application/json");
  EXPECT_EQ(res.status, 415);
  EXPECT_EQ(J(res.body)["/reason"], "UnsupportedMediaType");
}

TEST_F(PatchTest, MissingObjectIs404) {
  auto res = Patch(PodPath("nope"), "{}", "application/merge-patch+json");
  EXPECT_EQ(res.status, 404);
}

TEST_F(PatchTest, StrictUnknownFieldInPatch) {
  CreatePod("p1");
  auto res = Must(client_->Patch(PodPath("p1") + "?fieldValidation=Strict",
                                 R"({"spec":{"bogus":true}})", "application/merge-patch+json"));
  EXPECT_EQ(res.status, 400) << res.body;
  EXPECT_NE(res.body.find("unknown field"), std::string::npos);
}

TEST_F(PatchTest, StalePatchResourceVersionConflicts) {
  CreatePod("p1");
  auto res = Patch(PodPath("p1"), R"({"metadata":{"resourceVersion":"1","labels":{"a":"b"}}})",
                   "application/merge-patch+json");
  EXPECT_EQ(res.status, 409) << res.body;
}

TEST_F(PatchTest, StatusPatchChangesStatusOnly) {
  CreatePod("p1");
  auto res = Patch(PodPath("p1") + "/status",
                   R"({"metadata":{"labels":{"ignored":"yes"}},"status":{"phase":"Running"}})",
                   "application/merge-patch+json");
  ASSERT_EQ(res.status, 200) << res.body;
  J p(res.body);
  EXPECT_EQ(p["/status/phase"], "Running");
  EXPECT_EQ(p["/metadata/labels/ignored"], "<missing>");
  // And a main-resource update does not touch status.
  auto main =
      Patch(PodPath("p1"), R"({"status":{"phase":"Failed"}})", "application/merge-patch+json");
  ASSERT_EQ(main.status, 200);
  EXPECT_EQ(J(main.body)["/status/phase"], "Running");
}

TEST_F(PatchTest, ApplyCreatesThenUpdates) {
  std::string yaml =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a1\nspec:\n  containers:\n"
      "  - name: c\n    image: busybox\n";
  auto missing_manager = Patch(PodPath("a1"), yaml, "application/apply-patch+yaml");
  EXPECT_EQ(missing_manager.status, 422);
  EXPECT_EQ(J(missing_manager.body)["/message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required "
            "for apply patch");
  auto created = Must(client_->Patch(PodPath("a1") + "?fieldManager=kubectl&force=false", yaml,
                                     "application/apply-patch+yaml"));
  ASSERT_EQ(created.status, 201) << created.body;
  // The second apply keeps the container: an applier's omitted fields are removed.
  std::string relabel =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a1\n  labels:\n    app: x\nspec:\n"
      "  containers:\n  - name: c\n    image: busybox\n";
  auto updated = Must(client_->Patch(PodPath("a1") + "?fieldManager=kubectl", relabel,
                                     "application/apply-patch+yaml"));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(J(updated.body)["/metadata/labels/app"], "x");
}

// metadata.managedFields as kube-apiserver keeps them: creates and updates own what they
// change, appliers what they apply; an apply that would change another manager's field is a 409
// naming it, unless forced; an applier's omitted fields are removed.
TEST_F(PatchTest, ServerSideApplyTracksManagedFields) {
  std::string base = "/api/v1/namespaces/default/configmaps";
  auto created = Must(client_->Post(base + "?fieldManager=kubectl-create",
                                    R"({"apiVersion":"v1","kind":"ConfigMap",
                                        "metadata":{"name":"cm"},"data":{"a":"1"}})"));
  ASSERT_EQ(created.status, 201) << created.body;
  J c(created.body);
  EXPECT_EQ(c["/metadata/managedFields/0/manager"], "kubectl-create");
  EXPECT_EQ(c["/metadata/managedFields/0/operation"], "Update");
  EXPECT_EQ(c["/metadata/managedFields/0/apiVersion"], "v1");
  EXPECT_EQ(c["/metadata/managedFields/0/fieldsType"], "FieldsV1");
  EXPECT_EQ(c["/metadata/managedFields/0/fieldsV1"], R"({"f:data":{".":{},"f:a":{}}})");

  std::string path = base + "/cm";
  std::string config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: \"2\"\n"
                       "  b: \"1\"\n";
  auto conflict = Must(client_->Patch(path + "?fieldManager=tool", config,
                                      "application/apply-patch+yaml"));
  ASSERT_EQ(conflict.status, 409) << conflict.body;
  J k(conflict.body);
  EXPECT_EQ(k["/reason"], "Conflict");
  EXPECT_NE(k["/message"].find("Apply failed with 1 conflict: conflict with \"kubectl-create\" "
                               "using v1 at "),
            std::string::npos)
      << conflict.body;
  EXPECT_EQ(k["/details/causes/0/reason"], "FieldManagerConflict");
  EXPECT_EQ(k["/details/causes/0/field"], ".data.a");
  EXPECT_EQ(J(Get(path).body)["/data/a"], "1");  // nothing written

  auto forced = Must(client_->Patch(path + "?fieldManager=tool&force=true", config,
                                    "application/apply-patch+yaml"));
  ASSERT_EQ(forced.status, 200) << forced.body;
  J f(forced.body);
  EXPECT_EQ(f["/data/a"], "2");
  EXPECT_EQ(f["/metadata/managedFields/0/manager"], "tool");
  EXPECT_EQ(f["/metadata/managedFields/0/operation"], "Apply");
  EXPECT_EQ(f["/metadata/managedFields/0/fieldsV1"], R"({"f:data":{"f:a":{},"f:b":{}}})");
  EXPECT_EQ(f["/metadata/managedFields/1/fieldsV1"], R"({"f:data":{}})");

  // Applying without b removes it: only the applier owned it.
  auto pruned = Must(client_->Patch(path + "?fieldManager=tool",
                                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
                                    "data:\n  a: \"2\"\n",
                                    "application/apply-patch+yaml"));
  ASSERT_EQ(pruned.status, 200) << pruned.body;
  EXPECT_EQ(J(pruned.body)["/data/b"], "<missing>");

  // A merge patch without fieldManager writes as its User-Agent's product.
  auto patched = Patch(path, R"({"data":{"c":"3"}})", "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  bool found = false;
  J p(patched.body);
  for (size_t i = 0; i < p.Size("/metadata/managedFields"); ++i) {
    std::string e = "/metadata/managedFields/" + std::to_string(i);
    if (p[(e + "/fieldsV1").c_str()] == R"({"f:data":{"f:c":{}}})") found = true;
  }
  EXPECT_TRUE(found) << patched.body;

  auto force_merge = Must(client_->Patch(path + "?force=true", R"({"data":{"c":"4"}})",
                                         "application/merge-patch+json"));
  EXPECT_EQ(force_merge.status, 422) << force_merge.body;
}

TEST_F(PatchTest, BindingThenConflict) {
  CreatePod("p1");
  std::string binding = R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},
                            "target":{"apiVersion":"v1","kind":"Node","name":"n1"}})";
  auto res = Post(PodPath("p1") + "/binding", binding);
  ASSERT_EQ(res.status, 201) << res.body;
  J s(res.body);
  EXPECT_EQ(s["/kind"], "Status");
  EXPECT_EQ(s["/status"], "Success");
  EXPECT_EQ(s["/code"], "201");

  J pod(Get(PodPath("p1")).body);
  EXPECT_EQ(pod["/spec/nodeName"], "n1");
  bool scheduled = false;
  for (size_t i = 0; i < pod.Size("/status/conditions"); ++i) {
    std::string base = "/status/conditions/" + std::to_string(i);
    if (pod[(base + "/type").c_str()] == "PodScheduled") {
      scheduled = pod[(base + "/status").c_str()] == "True";
    }
  }
  EXPECT_TRUE(scheduled) << pod["/status"];

  std::string again = R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},
                          "target":{"name":"n2"}})";
  auto conflict = Post(PodPath("p1") + "/binding", again);
  ASSERT_EQ(conflict.status, 409) << conflict.body;
  EXPECT_EQ(J(conflict.body)["/reason"], "Conflict");
  EXPECT_NE(J(conflict.body)["/message"].find("pod p1 is already assigned to node \"n1\""),
            std::string::npos)
      << conflict.body;
}

TEST_F(PatchTest, BindingErrors) {
  CreatePod("gated", R"("schedulingGates":[{"name":"example.com/wait"}])");
  auto gated = Post(PodPath("gated") + "/binding",
                    R"({"metadata":{"name":"gated"},"target":{"name":"n1"}})");
  EXPECT_EQ(gated.status, 409) << gated.body;
  auto missing =
      Post(PodPath("nope") + "/binding", R"({"metadata":{"name":"nope"},"target":{"name":"n1"}})");
  EXPECT_EQ(missing.status, 404);
  CreatePod("p1");
  auto no_target = Post(PodPath("p1") + "/binding", R"({"metadata":{"name":"p1"},"target":{}})");
  EXPECT_EQ(no_target.status, 422) << no_target.body;
  auto wrong_name =
      Post(PodPath("p1") + "/binding", R"({"metadata":{"name":"p2"},"target":{"name":"n1"}})");
  EXPECT_EQ(wrong_name.status, 400);
  EXPECT_EQ(J(wrong_name.body)["/message"], "name in URL does not match name in Binding object");
  // The Binding must name the pod: one without a name binds nothing.
  EXPECT_EQ(Post(PodPath("p1") + "/binding", R"({"target":{"name":"n1"}})").status, 400);
  auto other_ns = Post(PodPath("p1") + "/binding",
                       R"({"metadata":{"name":"p1","namespace":"other"},"target":{"name":"n1"}})");
  EXPECT_EQ(other_ns.status, 400) << other_ns.body;
  EXPECT_EQ(Get(PodPath("p1") + "/binding").status, 405);
}

TEST_F(PatchTest, Eviction) {
  CreatePod("p1");
  auto res = Post(PodPath("p1") + "/eviction",
                  R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1"}})");
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(Get(PodPath("p1")).status, 404);
  EXPECT_EQ(Post(PodPath("p1") + "/eviction", R"({"metadata":{"name":"p1"}})").status, 404);
  // An Eviction must name the URL's pod, in its namespace; an empty POST evicts nothing.
  CreatePod("p2");
  for (const char* body : {"", "{}", R"({"metadata":{"name":"p3"}})",
                           R"({"metadata":{"name":"p2","namespace":"other"}})"}) {
    EXPECT_EQ(Post(PodPath("p2") + "/eviction", body).status, 400) << body;
  }
  EXPECT_EQ(Get(PodPath("p2")).status, 200);
}

}  // namespace
}  // namespace allot::apiserver

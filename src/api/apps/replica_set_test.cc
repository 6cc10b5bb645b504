// ReplicaSet, ReplicationController and StatefulSet: codec, defaulting, validation, tables.
#include "api/apps/replica_set.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/apps/stateful_set.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::ExpectRoundTrip;

PodTemplateSpec Template(std::string app) {
  PodTemplateSpec t;
  t.metadata.labels["app"] = std::move(app);
  Container c;
  c.name = "main";
  c.image = "busybox";
  t.spec.containers.push_back(c);
  return t;
}

ReplicaSet Set() {
  ReplicaSet rs;
  rs.metadata.name = "web";
  rs.metadata.namespace_ = "default";
  rs.spec.selector = LabelSelector{.matchLabels = {{"app", "web"}}};
  rs.spec.template_ = Template("web");
  DefaultReplicaSet(rs);
  return rs;
}

std::vector<std::string> Errors(const ReplicaSet& rs) {
  FieldErrors errs;
  ValidateReplicaSet(rs, errs);
  return errs.Messages();
}

TEST(ReplicaSetTest, DefaultsAndRoundTrip) {
  ReplicaSet rs = Set();
  EXPECT_EQ(rs.spec.replicas, 1);
  EXPECT_EQ(rs.spec.template_.spec.restartPolicy, "Always");
  EXPECT_EQ(rs.spec.template_.spec.schedulerName, "default-scheduler");
  EXPECT_FALSE(rs.spec.template_.spec.priority.has_value());  // admission's, not defaulting's
  EXPECT_TRUE(Errors(rs).empty()) << ::testing::PrintToString(Errors(rs));
  ExpectRoundTrip(R"({"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"r"},)"
                  R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"a"}},)"
                  R"("template":{"metadata":{"labels":{"app":"a"}},)"
                  R"("spec":{"containers":[{"name":"c","image":"i","resources":{}}]}}},)"
                  R"("status":{"replicas":0}})");
}

TEST(ReplicaSetTest, SelectorMustMatchAndPodsMustRestart) {
  ReplicaSet rs = Set();
  rs.spec.template_.metadata.labels["app"] = "other";
  rs.spec.template_.spec.restartPolicy = "OnFailure";
  rs.spec.replicas = -1;
  EXPECT_EQ(Errors(rs),
            (std::vector<std::string>{
                "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
                "spec.template.metadata.labels: Invalid value: {\"app\":"
                "\"other\"}: `selector` does not match template `labels`",
                "spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported "
                "values: \"Always\""}));
  ReplicaSet no_selector = Set();
  no_selector.spec.selector.reset();
  EXPECT_EQ(Errors(no_selector), std::vector<std::string>{"spec.selector: Required value"});
  ReplicaSet moved = Set();
  moved.spec.selector->matchLabels["tier"] = "x";
  FieldErrors errs;
  ValidateReplicaSetUpdate(moved, Set(), errs);
  EXPECT_EQ(errs.size(), 1u);
}

TEST(ReplicaSetTest, ReplicationControllerSelectorDefaultsToTheTemplate) {
  ReplicationController rc;
  rc.metadata.name = "legacy";
  rc.metadata.namespace_ = "default";
  rc.spec.template_ = Template("legacy");
  DefaultReplicationController(rc);
  EXPECT_EQ(rc.spec.selector.at("app"), "legacy");
  EXPECT_EQ(rc.metadata.labels.at("app"), "legacy");
  FieldErrors errs;
  ValidateReplicationController(rc, errs);
  EXPECT_TRUE(errs.empty()) << ::testing::PrintToString(errs.Messages());
  const ResourceInfo* r = ResourceRegistry::Default().Find("", "v1", "replicationcontrollers");
  ASSERT_NE(r, nullptr);
  std::vector<TableCell> row = r->row(rc, Time());
  EXPECT_EQ(std::get<int64_t>(row[0]), 1);
  EXPECT_EQ(std::get<std::string>(row[4]), "main");
  EXPECT_EQ(std::get<std::string>(row[5]), "busybox");
  EXPECT_EQ(std::get<std::string>(row[6]), "app=legacy");
}

TEST(StatefulSetTest, DefaultsValidationAndImmutableFields) {
  StatefulSet sts;
  sts.metadata.name = "db";
  sts.metadata.namespace_ = "default";
  sts.spec.selector = LabelSelector{.matchLabels = {{"app", "db"}}};
  sts.spec.template_ = Template("db");
  PersistentVolumeClaim data;
  data.metadata.name = "data";
  data.spec.accessModes = {"ReadWriteOnce"};
  data.spec.resources.requests["storage"] = *Quantity::Parse("1Gi");
  sts.spec.volumeClaimTemplates.push_back(data);
  DefaultStatefulSet(sts);
  EXPECT_EQ(sts.spec.podManagementPolicy, "OrderedReady");
  EXPECT_EQ(sts.spec.updateStrategy.type, "RollingUpdate");
  EXPECT_EQ(sts.spec.updateStrategy.rollingUpdate->partition, 0);
  EXPECT_EQ(sts.spec.revisionHistoryLimit, 10);
  EXPECT_EQ(sts.spec.persistentVolumeClaimRetentionPolicy->whenDeleted, "Retain");
  EXPECT_EQ(sts.spec.volumeClaimTemplates[0].spec.volumeMode, "Filesystem");
  FieldErrors errs;
  ValidateStatefulSet(sts, errs);
  EXPECT_TRUE(errs.empty()) << ::testing::PrintToString(errs.Messages());

  StatefulSet scaled = sts;
  scaled.spec.replicas = 5;
  FieldErrors ok;
  ValidateStatefulSetUpdate(scaled, sts, ok);
  EXPECT_TRUE(ok.empty());
  StatefulSet renamed = sts;
  renamed.spec.serviceName = "other";
  FieldErrors bad;
  ValidateStatefulSetUpdate(renamed, sts, bad);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad.Messages()[0].find("updates to statefulset spec for fields other than"),
            std::string::npos);
}

}  // namespace
}  // namespace allot::api

// PersistentVolume and PersistentVolumeClaim: codec, defaulting and validation.
#include "api/core/volumes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/machinery/resources.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::ExpectRoundTrip;

PersistentVolume LocalVolume() {
  PersistentVolume pv;
  pv.metadata.name = "pv-1";
  pv.spec.capacity["storage"] = *Quantity::Parse("10Gi");
  pv.spec.accessModes = {"ReadWriteOnce"};
  pv.spec.local.json = R"({"path":"/mnt/disks/1"})";
  NodeSelectorRequirement req;
  req.key = "kubernetes.io/hostname";
  req.operator_ = "In";
  req.values = {"node-1"};
  NodeSelector sel;
  sel.nodeSelectorTerms.push_back({.matchExpressions = {req}});
  pv.spec.nodeAffinity = VolumeNodeAffinity{sel};
  DefaultPersistentVolume(pv);
  return pv;
}

PersistentVolumeClaim Claim() {
  PersistentVolumeClaim pvc;
  pvc.metadata.name = "data";
  pvc.metadata.namespace_ = "default";
  pvc.spec.accessModes = {"ReadWriteOnce"};
  pvc.spec.resources.requests["storage"] = *Quantity::Parse("1Gi");
  DefaultPersistentVolumeClaim(pvc);
  return pvc;
}

template <class T, void (*F)(const T&, FieldErrors&)>
std::vector<std::string> Errors(const T& obj) {
  FieldErrors errs;
  F(obj, errs);
  return errs.Messages();
}

TEST(VolumesTest, RoundTripKeepsTheSourceVerbatim) {
  auto pv = ExpectRoundTrip(
      R"({"kind":"PersistentVolume","apiVersion":"v1","metadata":{"name":"pv"},)"
      R"("spec":{"capacity":{"storage":"1Gi"},"csi":{"driver":"csi.example.com",)"
      R"("volumeHandle":"h","volumeAttributes":{"a":"b"}},"accessModes":["ReadWriteOnce"]},)"
      R"("status":{"phase":"Available"}})");
  ASSERT_NE(pv, nullptr);
  EXPECT_EQ(static_cast<const PersistentVolume&>(*pv).spec.SetSources(),
            std::vector<const char*>{"csi"});
}

TEST(VolumesTest, DefaultsAndAValidLocalVolume) {
  PersistentVolume pv = LocalVolume();
  EXPECT_EQ(pv.spec.persistentVolumeReclaimPolicy, "Retain");
  EXPECT_EQ(pv.spec.volumeMode, "Filesystem");
  EXPECT_EQ(pv.status.phase, "Pending");
  EXPECT_TRUE((Errors<PersistentVolume, ValidatePersistentVolume>(pv)).empty());
  PersistentVolumeClaim pvc = Claim();
  EXPECT_EQ(pvc.status.phase, "Pending");
  EXPECT_TRUE((Errors<PersistentVolumeClaim, ValidatePersistentVolumeClaim>(pvc)).empty());
}

TEST(VolumesTest, VolumeValidation) {
  PersistentVolume pv = LocalVolume();
  pv.spec.nodeAffinity.reset();
  pv.spec.hostPath.json = R"({"path":"/x"})";
  pv.spec.accessModes = {"ReadWriteOncePod", "ReadWriteMany"};
  pv.spec.capacity["cpu"] = *Quantity::Parse("1");
  EXPECT_EQ((Errors<PersistentVolume, ValidatePersistentVolume>(pv)),
            (std::vector<std::string>{
                "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
                "spec.capacity: Unsupported value: {\"cpu\":\"1\",\"storage\":\"10Gi\"}: "
                "supported values: \"storage\"",
                "spec.local: Forbidden: may not specify more than 1 volume type",
                "spec.nodeAffinity: Required value: Local volume requires node affinity"}));
  PersistentVolume none;
  none.metadata.name = "pv";
  DefaultPersistentVolume(none);
  EXPECT_EQ((Errors<PersistentVolume, ValidatePersistentVolume>(none)),
            (std::vector<std::string>{
                "spec.accessModes: Required value", "spec.capacity: Required value",
                "spec.capacity: Unsupported value: null: supported values: \"storage\"",
                "spec: Required value: must specify a volume type"}));
}

TEST(VolumesTest, ClaimValidation) {
  PersistentVolumeClaim pvc = Claim();
  pvc.spec.accessModes.clear();
  pvc.spec.resources.requests.clear();
  pvc.spec.storageClassName = "Fast_SSD";
  EXPECT_EQ((Errors<PersistentVolumeClaim, ValidatePersistentVolumeClaim>(pvc)),
            (std::vector<std::string>{
                "spec.accessModes: Required value: at least 1 access mode is required",
                "spec.resources[storage]: Required value",
                "spec.storageClassName: Invalid value: \"Fast_SSD\": " + testing::kSubdomainMsg}));
}

TEST(VolumesTest, ClaimSpecIsImmutableButBoundClaimsMayGrow) {
  PersistentVolumeClaim old = Claim();
  old.spec.volumeName = "pv-1";
  old.status.phase = "Bound";
  PersistentVolumeClaim grow = old;
  grow.spec.resources.requests["storage"] = *Quantity::Parse("2Gi");
  FieldErrors ok;
  ValidatePersistentVolumeClaimUpdate(grow, old, ok);
  EXPECT_TRUE(ok.empty()) << ::testing::PrintToString(ok.Messages());
  PersistentVolumeClaim change = old;
  change.spec.accessModes = {"ReadWriteMany"};
  FieldErrors errs;
  ValidatePersistentVolumeClaimUpdate(change, old, errs);
  EXPECT_EQ(errs.Messages(),
            std::vector<std::string>{"spec: Forbidden: spec is immutable after creation except "
                                     "resources.requests and volumeAttributesClassName for bound "
                                     "claims"});
  PersistentVolume pv = LocalVolume();
  PersistentVolume moved = pv;
  moved.spec.local.json = R"({"path":"/elsewhere"})";
  FieldErrors pv_errs;
  ValidatePersistentVolumeUpdate(moved, pv, pv_errs);
  EXPECT_EQ(pv_errs.Messages(),
            std::vector<std::string>{"spec.persistentvolumesource: Forbidden: "
                                     "spec.persistentvolumesource is immutable after creation"});
}

}  // namespace
}  // namespace allot::api

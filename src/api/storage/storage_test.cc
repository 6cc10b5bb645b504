// The storage.k8s.io kinds: defaulting, validation, registration and tables.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/machinery/resources.h"
#include "api/storage/csi.h"
#include "api/storage/storage_class.h"
#include "api/storage/volume_attachment.h"

namespace allot::api {
namespace {

TEST(StorageTest, StorageClassDefaultsAndImmutability) {
  StorageClass sc;
  sc.metadata.name = "fast";
  sc.provisioner = "csi.example.com";
  DefaultStorageClass(sc);
  EXPECT_EQ(sc.reclaimPolicy, "Delete");
  EXPECT_EQ(sc.volumeBindingMode, "Immediate");
  FieldErrors errs;
  ValidateStorageClass(sc, errs);
  EXPECT_TRUE(errs.empty()) << ::testing::PrintToString(errs.Messages());
  StorageClass changed = sc;
  changed.provisioner = "other.example.com";
  FieldErrors update;
  ValidateStorageClassUpdate(changed, sc, update);
  EXPECT_EQ(update.Messages(),
            std::vector<std::string>{
                "provisioner: Invalid value: \"other.example.com\": field is immutable"});
  StorageClass bad;
  bad.metadata.name = "bad";
  bad.volumeBindingMode = "Later";
  FieldErrors errs2;
  ValidateStorageClass(bad, errs2);
  EXPECT_EQ(errs2.Messages(),
            (std::vector<std::string>{"provisioner: Required value",
                                      "volumeBindingMode: Unsupported value: \"Later\": "
                                      "supported values: \"Immediate\", \"WaitForFirstConsumer\""}));
}

TEST(StorageTest, CsiDriverAndNode) {
  CSIDriver d;
  d.metadata.name = "csi.example.com";
  d.spec.tokenRequests = {{.audience = "a", .expirationSeconds = 60}, {.audience = "a"}};
  DefaultCSIDriver(d);
  EXPECT_EQ(d.spec.attachRequired, true);
  EXPECT_EQ(d.spec.volumeLifecycleModes, std::vector<std::string>{"Persistent"});
  FieldErrors errs;
  ValidateCSIDriver(d, errs);
  EXPECT_EQ(errs.Messages(),
            (std::vector<std::string>{
                "spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a "
                "duration less than 10 minutes",
                "spec.tokenRequests[1].audience: Duplicate value: \"a\""}));
  CSINode n;
  n.metadata.name = "node-1";
  n.spec.drivers = {{.name = "csi.example.com", .nodeID = "n1"},
                    {.name = "csi.example.com", .nodeID = ""}};
  FieldErrors node_errs;
  ValidateCSINode(n, node_errs);
  EXPECT_EQ(node_errs.Messages(),
            (std::vector<std::string>{"spec.drivers[1].nodeID: Required value",
                                      "spec.drivers[1].name: Duplicate value: \"csi.example.com\""}));
}

TEST(StorageTest, VolumeAttachmentNeedsOneSource) {
  VolumeAttachment va;
  va.metadata.name = "va";
  va.spec.attacher = "csi.example.com";
  va.spec.nodeName = "node-1";
  FieldErrors errs;
  ValidateVolumeAttachment(va, errs);
  EXPECT_EQ(errs.Messages(),
            std::vector<std::string>{"spec.source: Required value: must specify exactly one of "
                                     "inlineVolumeSpec and persistentVolumeName"});
  va.spec.source.persistentVolumeName = "pv";
  VolumeAttachment moved = va;
  moved.spec.nodeName = "node-2";
  FieldErrors update;
  ValidateVolumeAttachmentUpdate(moved, va, update);
  EXPECT_EQ(update.size(), 1u);
}

TEST(StorageTest, ResourcesAreServedAsKubeApiserverServesThem) {
  const ResourceRegistry& reg = ResourceRegistry::Default();
  for (const char* name : {"storageclasses", "csidrivers", "csinodes", "volumeattachments"}) {
    const ResourceInfo* r = reg.Find("storage.k8s.io", "v1", name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_FALSE(r->namespaced) << name;
  }
  const ResourceInfo* caps = reg.Find("storage.k8s.io", "v1", "csistoragecapacities");
  ASSERT_NE(caps, nullptr);
  EXPECT_TRUE(caps->namespaced);
  EXPECT_EQ(reg.Find("storage.k8s.io", "v1", "storageclasses")->short_names,
            std::vector<std::string>{"sc"});
}

}  // namespace
}  // namespace allot::api

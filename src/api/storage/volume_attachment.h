// storage.k8s.io/v1 VolumeAttachment (k8s.io/api storage/v1, Kubernetes 1.37): the intent to
// attach a volume to a node, and the attacher's report of it. kube-scheduler counts them against
// a node's CSI volume limit; Allot stores and validates them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "api/core/volumes.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/validation.h"

namespace allot::api {

struct VolumeAttachmentSource {
  std::optional<std::string> persistentVolumeName;
  std::optional<PersistentVolumeSpec> inlineVolumeSpec;
  template <class V> void Visit(V& v) {
    v("persistentVolumeName", persistentVolumeName);
    v("inlineVolumeSpec", inlineVolumeSpec);
  }
  bool operator==(const VolumeAttachmentSource&) const = default;
};

struct VolumeAttachmentSpec {
  std::string attacher;
  VolumeAttachmentSource source;
  std::string nodeName;
  template <class V> void Visit(V& v) {
    v("attacher", attacher, {.always = true, .required = true});
    v("source", source, {.always = true, .required = true});
    v("nodeName", nodeName, {.always = true, .required = true});
  }
  bool operator==(const VolumeAttachmentSpec&) const = default;
};

struct VolumeError {
  std::optional<Time> time;
  std::string message;
  std::optional<int32_t> errorCode;
  template <class V> void Visit(V& v) {
    v("time", time);
    v("message", message);
    v("errorCode", errorCode);
  }
  bool operator==(const VolumeError&) const = default;
};

struct VolumeAttachmentStatus {
  bool attached = false;
  std::map<std::string, std::string> attachmentMetadata;
  std::optional<VolumeError> attachError;
  std::optional<VolumeError> detachError;
  template <class V> void Visit(V& v) {
    v("attached", attached, {.always = true, .required = true});
    v("attachmentMetadata", attachmentMetadata);
    v("attachError", attachError);
    v("detachError", detachError);
  }
  bool operator==(const VolumeAttachmentStatus&) const = default;
};

struct VolumeAttachment : TypedObject<VolumeAttachment> {
  static const TypeInfo& Type();
  VolumeAttachmentSpec spec;
  VolumeAttachmentStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const VolumeAttachment& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// storagevalidation.ValidateVolumeAttachment: a CSI driver name as attacher; exactly one of
// persistentVolumeName and inlineVolumeSpec; a node name. The spec is immutable; the status'
// errors at most 1024 bytes and metadata at most 256 KiB.
void ValidateVolumeAttachment(const VolumeAttachment& va, FieldErrors& errs);
void ValidateVolumeAttachmentUpdate(const VolumeAttachment& va, const VolumeAttachment& old,
                                    FieldErrors& errs);
void ValidateVolumeAttachmentStatusUpdate(const VolumeAttachment& va, const VolumeAttachment& old,
                                          FieldErrors& errs);

}  // namespace allot::api

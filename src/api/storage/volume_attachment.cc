// VolumeAttachment: validation (pkg/apis/storage/validation ValidateVolumeAttachment*),
// Kubernetes 1.37.
#include "api/storage/volume_attachment.h"

#include "api/machinery/meta_validation.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(VolumeAttachment, "storage.k8s.io", "v1", "VolumeAttachment")

namespace {

constexpr size_t kMaxAttachedMetadataBytes = 256 * 1024;
constexpr size_t kMaxVolumeErrorMessageBytes = 1024;

void ValidateVolumeError(const std::optional<VolumeError>& e, const Path& p, FieldErrors& errs) {
  if (!e) return;
  if (e->message.size() > kMaxVolumeErrorMessageBytes) {
    errs.TooLong(p.Child("message"), kMaxVolumeErrorMessageBytes);
  }
  if (e->errorCode && *e->errorCode < 0) {
    errs.InvalidInt(p.Child("errorCode"), *e->errorCode, "must be between 0 and 2147483647, inclusive");
  }
}

void ValidateStatus(const VolumeAttachmentStatus& s, const Path& p, FieldErrors& errs) {
  size_t total = 0;
  for (const auto& [k, v] : s.attachmentMetadata) total += k.size() + v.size();
  if (total > kMaxAttachedMetadataBytes) {
    errs.TooLong(p.Child("attachmentMetadata"), kMaxAttachedMetadataBytes);
  }
  ValidateVolumeError(s.attachError, p.Child("attachError"), errs);
  ValidateVolumeError(s.detachError, p.Child("detachError"), errs);
}

}  // namespace

void ValidateVolumeAttachment(const VolumeAttachment& va, FieldErrors& errs) {
  ValidateObjectMeta(va.metadata, false, NameIsDnsSubdomain, errs);
  const Path spec("spec");
  validation_util::ValidateDriverName(va.spec.attacher, spec.Child("attacher"), errs);
  const VolumeAttachmentSource& src = va.spec.source;
  const Path sp = spec.Child("source");
  if (!src.persistentVolumeName && !src.inlineVolumeSpec) {
    errs.Required(sp, "must specify exactly one of inlineVolumeSpec and persistentVolumeName");
  } else if (src.persistentVolumeName && src.inlineVolumeSpec) {
    errs.Forbidden(sp, "must specify exactly one of inlineVolumeSpec and persistentVolumeName");
  } else if (src.persistentVolumeName) {
    if (src.persistentVolumeName->empty()) {
      errs.Required(sp.Child("persistentVolumeName"), "must specify non empty persistentVolumeName");
    }
  }
  validation_util::ValidateNodeName(va.spec.nodeName, spec.Child("nodeName"), errs);
  ValidateStatus(va.status, Path("status"), errs);
}

void ValidateVolumeAttachmentUpdate(const VolumeAttachment& va, const VolumeAttachment& old,
                                    FieldErrors& errs) {
  ValidateObjectMetaUpdate(va.metadata, old.metadata, errs);
  if (va.spec != old.spec) {
    errs.InvalidRendered(Path("spec"), "storage.VolumeAttachmentSpec{...}", "field is immutable");
  }
}

void ValidateVolumeAttachmentStatusUpdate(const VolumeAttachment& va, const VolumeAttachment& old,
                                          FieldErrors& errs) {
  ValidateObjectMetaUpdate(va.metadata, old.metadata, errs);
  ValidateStatus(va.status, Path("status"), errs);
}

}  // namespace allot::api

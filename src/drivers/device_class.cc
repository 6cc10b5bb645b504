#include "drivers/device_class.h"

#include <string>

namespace allot::drivers {

Status EnsureDeviceClass(client::Client& client, std::unique_ptr<api::DeviceClass> cls) {
  const std::string name = cls->metadata.name;
  const api::ResourceInfo& resource = api::ResourceFor<api::DeviceClass>();
  Result<api::ObjectPtr> created = client.Create(resource, std::move(cls));
  if (created.ok() || created.status().code() == StatusCode::kAlreadyExists) return Status::Ok();
  if (created.status().code() != StatusCode::kForbidden) return created.status();
  if (client.Get(resource, "", name).ok()) return Status::Ok();
  return Status(StatusCode::kForbidden, "DeviceClass " + name +
                                            " does not exist and this driver may not create it "
                                            "(an administrator must): " +
                                            created.status().message());
}

}  // namespace allot::drivers

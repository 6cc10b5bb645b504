// A driver's DeviceClass, made at start when missing: shared by the drivers that bring their
// own class (node-local, fabric, the accelerator pool).
//
// A driver with least privilege (api/rbac/bootstrap_policy.h, system:dra-driver) may not
// create DeviceClasses: the administrator creates them. Then a class that already exists is
// used as it is, and a missing one is an error that says so.
#pragma once

#include <memory>

#include "api/resource/types.h"
#include "client/client.h"
#include "common/status.h"

namespace allot::drivers {

// Creates `cls` unless a DeviceClass of its name exists (then that one is left as the
// administrator made it). Errors: the server's, or 403 "...: DeviceClass X does not exist and
// this driver may not create it" when the driver is not allowed to create it.
Status EnsureDeviceClass(client::Client& client, std::unique_ptr<api::DeviceClass> cls);

}  // namespace allot::drivers

#include "api/machinery/image_reference.h"

namespace allot::api {

std::string DefaultImagePullPolicy(std::string_view image) {
  std::string_view name = image;
  bool digest = false;
  if (size_t at = name.find('@'); at != std::string_view::npos) {
    digest = true;
    name = name.substr(0, at);
  }
  // A colon after the last slash starts the tag; one before it is a registry's port.
  size_t slash = name.rfind('/');
  size_t colon = name.rfind(':');
  bool tagged =
      colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
  if (tagged) return name.substr(colon + 1) == "latest" ? "Always" : "IfNotPresent";
  return digest ? "IfNotPresent" : "Always";
}

}  // namespace allot::api

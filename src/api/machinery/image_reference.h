// Container image references ("registry:5000/team/app:1.4@sha256:..."), as far as the API's
// defaults read them.
#pragma once

#include <string>
#include <string_view>

namespace allot::api {

// The pull policy Kubernetes defaults for an image reference (a container's imagePullPolicy, an
// image volume's pullPolicy): "Always" when the tag is "latest" or there is neither tag nor
// digest, else "IfNotPresent".
std::string DefaultImagePullPolicy(std::string_view image);

}  // namespace allot::api

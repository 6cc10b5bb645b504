// The live dashboard `allot serve` answers at /ui: one self-contained HTML page (inline CSS and
// JavaScript, nothing from the network; written as dashboard/page.html, page.css and page.js,
// and made one page at build time) that draws the cluster from the API's own lists and
// watches, in the browser:
//   - nodes x devices: every device of the ResourceSlices, on its node's row (fabric pools on
//     rows of their own), coloured by state, labelled with the pods (or Reservation) holding it;
//     the pods bound to each node;
//   - pending pods with the scheduler's reason (their PodScheduled condition);
//   - pods waiting: on binding conditions (a fabric device being attached), on a driver's
//     controller (PodSchedulingContext negotiation), or bound and not yet started (the kubelet
//     preparing their claims);
//   - Reservations: phase, node, owners.
// Read-only: the page only lists and watches. It re-lists after a watch ends or fails, so it
// follows the cluster without reloading.
//
// Authentication: the page itself holds no cluster data and is served to anyone (like the
// health probes); every request it makes goes to the API as the user, with the same
// authentication and authorization as kubectl's: the browser's client certificate, or a bearer
// token given once in the URL's fragment (/ui#token=<token>, kept in the tab's sessionStorage
// and removed from the address bar; a fragment is never sent to the server), or anonymous
// where the server allows it.
#pragma once

#include <string_view>

namespace allot::apiserver {

// The path the dashboard is served at (also "/ui/").
inline constexpr std::string_view kDashboardPath = "/ui";

// The page, as served (text/html; charset=utf-8).
std::string_view DashboardPage();

}  // namespace allot::apiserver

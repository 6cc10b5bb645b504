"use strict";
(function () {
  // --- credentials: a bearer token from the fragment, kept for this tab ---
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    sessionStorage.setItem("allot-token", fragment.get("token"));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const token = sessionStorage.getItem("allot-token");
  const headers = token ? { Authorization: "Bearer " + token } : {};

  // --- the objects, as lists and watches keep them ---
  const sources = {
    nodes: "/api/v1/nodes",
    pods: "/api/v1/pods",
    claims: "/apis/resource.k8s.io/v1/resourceclaims",
    slices: "/apis/resource.k8s.io/v1/resourceslices",
    contexts: "/apis/resource.k8s.io/v1alpha3/podschedulingcontexts",
    reservations: "/apis/scheduling.koordinator.sh/v1alpha1/reservations",
  };
  const state = {};
  const health = {};
  for (const k of Object.keys(sources)) { state[k] = new Map(); health[k] = "connecting"; }
  const keyOf = (o) => (o.metadata.namespace ? o.metadata.namespace + "/" : "") + o.metadata.name;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; render(); }, 100);
  }

  async function follow(kind) {
    const path = sources[kind];
    for (;;) {
      try {
        const listed = await fetch(path, { headers });
        if (!listed.ok) throw new Error(listed.status + " " + (await listed.text()).slice(0, 200));
        const list = await listed.json();
        const m = state[kind];
        m.clear();
        for (const o of list.items || []) m.set(keyOf(o), o);
        health[kind] = "ok";
        schedule();
        const rv = encodeURIComponent(list.metadata.resourceVersion || "");
        const watched = await fetch(path + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + rv, { headers });
        if (!watched.ok) throw new Error(watched.status + " " + (await watched.text()).slice(0, 200));
        const reader = watched.body.getReader();
        const decoder = new TextDecoder();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += decoder.decode(value, { stream: true });
          let nl;
          while ((nl = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (!line.trim()) continue;
            const ev = JSON.parse(line);
            if (ev.type === "ERROR") throw new Error((ev.object && ev.object.message) || "watch error");
            if (ev.type === "BOOKMARK") continue;
            if (ev.type === "DELETED") m.delete(keyOf(ev.object));
            else m.set(keyOf(ev.object), ev.object);
            schedule();
          }
        }
        // The server ended the watch (its timeout): list again.
      } catch (e) {
        health[kind] = String((e && e.message) || e);
        schedule();
        await sleep(2000);
      }
    }
  }

  // --- helpers ---
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }
  function fill(id, rows, empty, columns) {
    const body = document.querySelector("#" + id + " tbody");
    body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { class: "empty", colspan: String(columns) }, empty))]));
  }
  function age(ts) {
    if (!ts) return "";
    const s = Math.max(0, Math.round((Date.now() - Date.parse(ts)) / 1000));
    return s < 120 ? s + "s" : s < 7200 ? Math.round(s / 60) + "m" : Math.round(s / 3600) + "h";
  }
  const deviceId = (driver, pool, device) => driver + "/" + pool + "/" + device;
  const conditionTrue = (conds, type) => (conds || []).some((c) => c.type === type && c.status === "True");

  // Who holds each device: claim allocations, their consumers, whether binding conditions wait.
  function holders() {
    const byDevice = new Map();
    for (const c of state.claims.values()) {
      const alloc = c.status && c.status.allocation;
      if (!alloc || !alloc.devices) continue;
      const owner = (c.metadata.ownerReferences || []).find((r) => r.kind === "Reservation");
      const users = (c.status.reservedFor || []).filter((r) => r.resource === "pods").map((r) => r.name);
      for (const r of alloc.devices.results || []) {
        const st = (c.status.devices || []).find((d) => d.driver === r.driver && d.pool === r.pool && d.device === r.device);
        const conds = st ? st.conditions : [];
        const waiting = (r.bindingConditions || []).length > 0 &&
          !(r.bindingConditions || []).every((t) => conditionTrue(conds, t));
        byDevice.set(deviceId(r.driver, r.pool, r.device), {
          claim: keyOf(c), users, reservation: owner ? owner.name : "", waiting,
          conditions: r.bindingConditions || [], failure: (r.bindingFailureConditions || []).some((t) => conditionTrue(conds, t)),
        });
      }
    }
    return byDevice;
  }

  function deviceCell(slice, d, held) {
    const id = deviceId(slice.spec.driver, slice.spec.pool.name, d.name);
    const h = held.get(id);
    let cls = "dev";
    let label = "";
    if (h && h.reservation && !h.users.length) { cls += " reserved"; label = "reservation " + h.reservation; }
    else if (h) { cls += h.waiting ? " waiting" : " allocated"; label = h.users.length ? h.users.join(", ") : "claim " + h.claim; }
    if ((d.taints || []).length) cls += " tainted";
    const title = id + (h ? "\nclaim " + h.claim + (h.waiting ? "\nwaiting for " + h.conditions.join(", ") : "") : "\nfree") +
      ((d.taints || []).length ? "\ntaints: " + d.taints.map((t) => t.key + ":" + t.effect).join(", ") : "");
    return el("div", { class: cls, title, "data-device": id }, d.name, label ? el("span", { class: "holder" }, label) : null);
  }

  function render() {
    const held = holders();
    const nodes = [...state.nodes.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const pods = [...state.pods.values()];
    const podsOn = new Map();
    for (const p of pods) {
      if (!p.spec.nodeName) continue;
      if (p.status && (p.status.phase === "Succeeded" || p.status.phase === "Failed")) continue;
      if (!podsOn.has(p.spec.nodeName)) podsOn.set(p.spec.nodeName, []);
      podsOn.get(p.spec.nodeName).push(p);
    }
    // Devices by the row they belong on: a node, or a pool that is not on one node.
    const rows = new Map();
    let total = 0, used = 0;
    const slices = [...state.slices.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
    for (const s of slices) {
      for (const d of s.spec.devices || []) {
        const node = d.nodeName || s.spec.nodeName || "";
        const row = node || "pool " + s.spec.pool.name;
        if (!rows.has(row)) rows.set(row, []);
        rows.get(row).push(deviceCell(s, d, held));
        total++;
        if (held.has(deviceId(s.spec.driver, s.spec.pool.name, d.name))) used++;
      }
    }
    const nodeRows = nodes.map((n) => {
      const ready = (n.status && n.status.conditions || []).find((c) => c.type === "Ready");
      const up = ready && ready.status === "True";
      const onNode = (podsOn.get(n.metadata.name) || []).sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
      return el("tr", { "data-node": n.metadata.name },
        el("th", { class: up ? "" : "node-down" }, n.metadata.name, up ? "" : " (not ready)"),
        el("td", {}, el("div", { class: "devices" }, ...(rows.get(n.metadata.name) || []))),
        el("td", { class: "pods" }, ...onNode.map((p) => el("span", { "data-pod": keyOf(p) }, keyOf(p) + " (" + ((p.status && p.status.phase) || "Pending") + ")"))));
    });
    for (const [row, cells] of rows) {
      if (!row.startsWith("pool ")) continue;
      nodeRows.push(el("tr", { "data-pool": row.slice(5) }, el("th", {}, row),
        el("td", {}, el("div", { class: "devices" }, ...cells)), el("td", { class: "empty" }, "attached to a node when allocated")));
    }
    fill("nodes", nodeRows, "no nodes", 3);

    // Pending pods and why.
    const unbound = pods.filter((p) => !p.spec.nodeName && !p.metadata.deletionTimestamp &&
      !(p.status && (p.status.phase === "Succeeded" || p.status.phase === "Failed")));
    const claimsOf = (p) => (p.status && p.status.resourceClaimStatuses || []).map((s) => state.claims.get(p.metadata.namespace + "/" + s.resourceClaimName)).filter(Boolean)
      .concat((p.spec.resourceClaims || []).filter((c) => c.resourceClaimName).map((c) => state.claims.get(p.metadata.namespace + "/" + c.resourceClaimName)).filter(Boolean));
    const waitingRows = [];
    const pendingRows = [];
    for (const p of unbound.sort((a, b) => keyOf(a).localeCompare(keyOf(b)))) {
      const waits = [];
      for (const c of claimsOf(p)) {
        const alloc = c.status && c.status.allocation;
        for (const r of (alloc && alloc.devices && alloc.devices.results) || []) {
          const h = held.get(deviceId(r.driver, r.pool, r.device));
          if (h && h.waiting) waits.push(deviceId(r.driver, r.pool, r.device) + ": " + (h.failure ? "failed" : h.conditions.join(", ")));
        }
      }
      const ctx = state.contexts.get(keyOf(p));
      if (waits.length) {
        waitingRows.push(el("tr", { "data-pod": keyOf(p) }, el("td", {}, keyOf(p)), el("td", {}, (p.status && p.status.nominatedNodeName) || ""),
          el("td", {}, "binding conditions of " + waits.join("; "))));
      } else if (ctx && ctx.spec && ctx.spec.selectedNode) {
        const unsuitable = (ctx.status && ctx.status.resourceClaims || []).filter((c) => (c.unsuitableNodes || []).includes(ctx.spec.selectedNode)).map((c) => c.name);
        waitingRows.push(el("tr", { "data-pod": keyOf(p) }, el("td", {}, keyOf(p)), el("td", {}, ctx.spec.selectedNode),
          el("td", {}, "the drivers' controllers to allocate its claims" + (unsuitable.length ? " (unsuitable for " + unsuitable.join(", ") + ")" : ""))));
      } else {
        const cond = (p.status && p.status.conditions || []).find((c) => c.type === "PodScheduled" && c.status === "False");
        pendingRows.push(el("tr", { "data-pod": keyOf(p) }, el("td", {}, keyOf(p)), el("td", {}, age(p.metadata.creationTimestamp)),
          el("td", {}, cond ? (cond.reason || "") + (cond.message ? ": " + cond.message : "") : "not yet tried")));
      }
    }
    for (const p of pods.filter((p) => p.spec.nodeName && p.status && p.status.phase === "Pending" && !p.metadata.deletionTimestamp)
      .sort((a, b) => keyOf(a).localeCompare(keyOf(b)))) {
      waitingRows.push(el("tr", { "data-pod": keyOf(p) }, el("td", {}, keyOf(p)), el("td", {}, p.spec.nodeName),
        el("td", {}, "the kubelet to start it (its claims prepared by the drivers' plugins)")));
    }
    fill("pending", pendingRows, "no pending pods", 3);
    fill("waiting", waitingRows, "no pods waiting", 3);

    // Reservations.
    const resRows = [...state.reservations.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b))).map((r) => {
      const owners = (r.spec.owners || []).map((o) => o.labelSelector ? JSON.stringify(o.labelSelector.matchLabels || o.labelSelector) : o.object ? o.object.name : JSON.stringify(o)).join("; ");
      const using = ((r.status && r.status.currentOwners) || []).map((o) => (o.namespace ? o.namespace + "/" : "") + o.name).join(", ");
      return el("tr", { "data-reservation": keyOf(r) }, el("td", {}, keyOf(r)), el("td", {}, (r.status && r.status.phase) || "Pending"),
        el("td", {}, (r.status && r.status.nodeName) || ""), el("td", {}, owners), el("td", {}, using));
    });
    fill("reservations", resRows, "no reservations", 5);

    const running = pods.filter((p) => p.status && p.status.phase === "Running").length;
    document.getElementById("summary").textContent = nodes.length + " nodes, " + running + " pods running, " +
      pendingRows.length + " pending, " + waitingRows.length + " waiting; devices " + used + " of " + total + " allocated; " +
      state.reservations.size + " reservations";
    document.getElementById("sources").replaceChildren(...Object.keys(sources).map((k) =>
      el("span", { class: health[k] === "ok" ? "" : "bad", title: sources[k] }, k + ": " + health[k])));
  }

  for (const k of Object.keys(sources)) follow(k);
  setInterval(schedule, 5000);  // ages
})();

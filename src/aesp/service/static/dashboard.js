// Live view of the control plane: polls its own JSON API, no third-party code.
"use strict";

function fmt(v) {
  return v === null || v === undefined ? "–" : (typeof v === "number" ? v.toFixed(1) : String(v));
}

function bar(pct) {
  if (pct === null || pct === undefined) return "–";
  const w = Math.max(0, Math.min(100, pct));
  return '<span class="bar" style="width:' + w + 'px"></span> ' + pct.toFixed(1);
}

function esc(s) {
  return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
}

function fill(id, rows) {
  document.querySelector("#" + id + " tbody").innerHTML =
    rows.map(cells => "<tr>" + cells.map(c => "<td>" + c + "</td>").join("") + "</tr>").join("");
}

async function refresh() {
  try {
    const [sites, nodes, decisions] = await Promise.all(
      ["/v1/sites", "/v1/nodes", "/v1/decisions?limit=25"].map(u => fetch(u).then(r => r.json())));
    fill("sites", sites.map(s => [esc(s.name), esc(s.region), esc(s.zone), esc(s.tier),
      s.nodes_up + "/" + s.nodes, fmt(s.cpu_pct_mean), fmt(s.allocated_cpu_pct)]));
    fill("nodes", nodes.map(n => {
      const u = n.usage || {};
      return ['<span class="node-name">' + esc(n.name) + "</span>", esc(n.site),
        n.up ? "up" : '<span class="down">down</span>', bar(u.cpu_pct), bar(u.mem_pct),
        bar(u.gpu_pct), fmt(n.allocated_pct.cpu), fmt(n.staleness_s)];
    }));
    fill("decisions", decisions.map(d => [new Date(d.time_s * 1000).toISOString(),
      esc(d.source), esc(d.task), esc(d.node || "–"), esc(d.outcome), esc(d.reason)]));
    document.getElementById("status").textContent =
      "live: " + nodes.length + " nodes, " + sites.length + " sites, updated " +
      new Date().toISOString();
    document.body.dataset.loaded = "true";
  } catch (err) {
    document.getElementById("status").textContent = "error: " + err;
  }
}

refresh();
setInterval(refresh, 5000);

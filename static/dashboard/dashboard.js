/* The pit boss's dashboard: draws the floor map (tables by position, status, hold against
   theoretical, alarms), the shift notes, a tile per table (status, shoe progress, bead plate, big
   road and the derived roads, open violations, alarms, today's hold) and the hold chart from the
   overview JSON, then polls the JSON endpoint and redraws without reloading the page. A new alarm
   beeps when "sound" is ticked (remembered in this browser). No library, no network beyond this site. */
(function () {
  "use strict";
  var COLUMNS = 20; // scoreboard columns shown; older ones scroll off to the left
  var ROWS = 6;
  var COLORS = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#ad1457"];
  var SVG = "http://www.w3.org/2000/svg";
  // Words in the reader's language: Django's JavaScript catalog (gettext, ngettext, interpolate),
  // loaded before this file; without it, the English as written.
  var gettext = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, count) { return count === 1 ? one : many; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (whole, name) { return String(values[name]); });
  };
  function words(format, values) { return interpolate(format, values, true); }
  var WINNERS = {player: gettext("Player"), banker: gettext("Banker"), tie: gettext("Tie")};

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "className") node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // A scoreboard grid of the last COLUMNS columns: cells placed by (col, row), filled column by column.
  function board(kind, cells, draw) {
    var last = cells.reduce(function (m, c) { return Math.max(m, c.col); }, -1);
    var first = Math.max(0, last + 1 - COLUMNS);
    var slots = {};
    cells.forEach(function (c) { if (c.col >= first) slots[c.col + ":" + c.row] = c; });
    var grid = el("div", {className: "pd-board pd-" + kind, "data-cells": String(cells.length)});
    for (var col = first; col < first + COLUMNS; col++) {
      for (var row = 0; row < ROWS; row++) {
        var cell = slots[col + ":" + row];
        grid.appendChild(cell ? draw(cell) : el("i"));
      }
    }
    return grid;
  }

  function bead(cell) {
    var letter = {player: "P", banker: "B", tie: "T"}[cell.winner];
    var title = WINNERS[cell.winner] + (cell.pp ? gettext(", player pair") : "") + (cell.bp ? gettext(", banker pair") : "");
    var marks = (cell.pp ? " pp" : "") + (cell.bp ? " bp" : "");
    return el("i", {className: cell.winner + marks, title: title, text: letter});
  }

  function road(cell) {
    var node = el("i", {className: cell.winner + (cell.ties ? " ties" : ""),
                        title: WINNERS[cell.winner] + (cell.ties ? words(ngettext(" (+%(ties)s tie)", " (+%(ties)s ties)", cell.ties), {ties: cell.ties}) : "")});
    if (cell.ties > 1) node.appendChild(el("b", {text: String(cell.ties)}));
    return node;
  }

  // A derived road (big eye boy, small road, cockroach pig): red repeats the big road's pattern,
  // blue breaks it; drawn as small rings (big eye boy), dots (small road) or slashes (cockroach pig).
  function derived(cell) {
    return el("i", {className: cell.colour, title: cell.colour === "red" ? gettext("repeats") : gettext("breaks")});
  }

  function derivedRoads(shoe) {
    return el("div", {className: "pd-derived"}, [
      ["big_eye_boy", gettext("Big eye boy")], ["small_road", gettext("Small road")], ["cockroach_pig", gettext("Cockroach pig")]
    ].map(function (road) {
      return el("div", {}, [el("span", {className: "pd-road-name", text: road[1]}),
                            board(road[0].replace(/_/g, "-"), shoe[road[0]] || [], derived)]);
    }));
  }

  function figure(label, value) {
    return el("div", {}, [el("span", {text: label}), document.createTextNode(value)]);
  }

  var gamingDay = "";
  var closeShoeUrl = "";

  function alarmMark(count) {
    return count ? el("span", {className: "pd-alarm-mark", title: words(ngettext("%(count)s unreviewed alarm", "%(count)s unreviewed alarms", count), {count: count}),
                               text: "! " + count}) : null;
  }

  // The floor map: a cell per table where it stands, its frame its status, its colour its hold
  // against theoretical, a mark when it has unreviewed alarms; a click goes to its tile.
  function floor(tables) {
    var cells = tables.map(function (t) {
      var band = t.hold_band || "none";
      var hold = t.today.hold_percent === null ? gettext("no play") : words(gettext("%(hold)s (theo %(theoretical)s)"),
      {hold: t.today.hold_percent + "%", theoretical: t.today.theoretical_hold_percent + "%"});
      return el("a", {href: "#tile-" + t.code, role: "listitem",
                      className: "pd-spot " + t.status + " " + band + (t.alarms ? " alarmed" : ""),
                      "data-table": t.code, "data-band": band, "data-alarms": String(t.alarms),
                      style: "grid-row:" + t.position.row + ";grid-column:" + t.position.column,
                      title: words(gettext("%(table)s %(status)s, hold %(hold)s"), {table: t.code, status: t.status_display, hold: hold})}, [
        el("strong", {text: t.code}), alarmMark(t.alarms),
        el("span", {text: t.status_display}), el("span", {text: hold})
      ]);
    });
    return cells;
  }

  function notes(list) {
    if (!list.length) return [el("li", {className: "pd-quiet", text: gettext("No notes handed over.")})];
    return list.map(function (n) {
      return el("li", {className: n.handed_over ? "handed" : ""}, [
        el("strong", {text: (n.table ? n.table + ": " : "") }), document.createTextNode(n.text),
        el("span", {className: "pd-quiet", text: " \u2014 " + n.by + ", " + n.written_display +
                    (n.handed_over ? gettext(" (previous shift)") : "")})
      ]);
    });
  }

  var lastAlarms = null;
  function beepOnNewAlarm(tables) {
    var total = tables.reduce(function (sum, t) { return sum + t.alarms; }, 0);
    var sound = document.getElementById("pd-sound");
    if (lastAlarms !== null && total > lastAlarms && sound && sound.checked && window.AudioContext) {
      var audio = new AudioContext(), tone = audio.createOscillator();
      tone.frequency.value = 880;
      tone.connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.4);
    }
    lastAlarms = total;
    document.getElementById("pit-dashboard").setAttribute("data-alarms", String(total));
  }

  function tile(table, violationsUrl) {
    var shoe = table.shoe;
    var status = el("span", {className: "pd-status " + table.status, text: table.status_display});
    var children = [
      el("h2", {}, [el("span", {text: table.code + " " + table.name}), alarmMark(table.alarms), status]),
      el("p", {className: "pd-sub", text: table.game + " \u00b7 " + table.paytable})
    ];
    if (shoe) {
      var dealt = Math.min(100, Math.round(100 * shoe.cards_dealt / Math.max(shoe.cut_card_position, 1)));
      var t = shoe.tally;
      children.push(
        el("p", {className: "pd-sub pd-shoe",
                 text: words(shoe.status === "dealing"
                   ? gettext("Shoe %(shoe)s dealing \u00b7 %(coups)s coups \u00b7 %(cards)s cards before the cut card")
                   : gettext("Shoe %(shoe)s closed \u00b7 %(coups)s coups \u00b7 %(cards)s cards before the cut card"),
                   {shoe: shoe.sequence, coups: shoe.coups, cards: shoe.cards_left_before_cut})}),
        el("div", {className: "pd-progress", title: words(gettext("%(dealt)s to the cut card"), {dealt: dealt + "%"})},
           [el("span", {style: "width:" + dealt + "%"})]),
        el("p", {className: "pd-tally"}, [
          el("span", {className: "p", text: words(gettext("Player %(count)s"), {count: t.player})}), document.createTextNode(" \u00b7 "),
          el("span", {className: "b", text: words(gettext("Banker %(count)s"), {count: t.banker})}), document.createTextNode(" \u00b7 "),
          el("span", {className: "t", text: words(gettext("Tie %(count)s"), {count: t.tie})})
        ]),
        closeShoeUrl && shoe.status === "dealing" ? el("p", {className: "pd-sub"}, [
          el("a", {href: closeShoeUrl.replace("/0/", "/" + shoe.id + "/"), className: "pd-close-shoe",
                   text: words(gettext("Close shoe %(shoe)s (box count)"), {shoe: shoe.sequence})})]) : null,
        board("bead", shoe.bead_plate, bead),
        board("road", shoe.big_road, road),
        derivedRoads(shoe)
      );
    } else {
      children.push(el("p", {className: "pd-sub", text: gettext("No shoe dealt yet.")}));
    }
    // Who sits where: the card number in the tier's colour, an unrated player as such, excluded in red.
    if (table.seats && table.seats.length) {
      children.push(el("p", {className: "pd-seats"}, table.seats.map(function (s) {
        var label = s.seat + ": " + (s.rated ? s.card : gettext("unrated")) + (s.paused ? gettext(" (break)") : "");
        return el("span", {className: "pd-seat" + (s.excluded ? " excluded" : "") + (s.rated ? "" : " unrated"),
                           style: s.excluded ? "" : (s.colour ? "border-color:" + s.colour : ""),
                           title: s.excluded ? gettext("Excluded patron seated") : (s.tier || gettext("Unrated player")),
                           text: label});
      })));
    }
    // Open and still holding, as the violation list counts them with "cleared=no": today's apart
    // from the backlog of earlier gaming days.
    var v = table.open_violations, today = table.open_violations_today, earlier = v - today;
    var list = violationsUrl + "?table__id__exact=" + table.id + "&status__exact=open&cleared=no";
    children.push(el("p", {className: "pd-violations" + (v ? "" : " none")}, v ? [
      el("a", {href: list + "&gaming_day=" + gamingDay, className: today ? "" : "quiet",
               text: words(ngettext("%(count)s open violation today", "%(count)s open violations today", today), {count: today})}),
      document.createTextNode(" \u00b7 "),
      el("a", {href: list, className: "quiet", text: words(gettext("%(count)s from earlier days"), {count: earlier})})
    ] : [document.createTextNode(gettext("No open violations"))]));
    var today = table.today;
    children.push(el("div", {className: "pd-figures"}, [
      figure(gettext("Handle today"), today.handle_display),
      figure(gettext("Win"), today.win_display),
      figure(gettext("Hold"), today.hold_percent === null ? "\u2014" : today.hold_percent + "%"),
      figure(gettext("Theoretical"), today.theoretical_win_display +
             (today.theoretical_hold_percent === null ? "" : " (" + today.theoretical_hold_percent + "%)"))
    ]));
    return el("section", {className: "pd-tile" + (table.alarms ? " alarmed" : ""), id: "tile-" + table.code,
                          "data-table": table.code, "data-alarms": String(table.alarms),
                          "data-coups": String(shoe ? shoe.coups : 0)}, children);
  }

  function chart(series) {
    var width = 760, height = 260, left = 44, right = 90, top = 10, bottom = 24;
    // From the first hour anyone wagered to now: the hours before the pit opened say nothing.
    var first = Infinity, values = [];
    series.forEach(function (s) {
      s.points.forEach(function (p, i) { if (p.hold !== null) { values.push(+p.hold); first = Math.min(first, i); } });
    });
    series = series.map(function (s) { return {table: s.table, points: s.points.slice(first)}; });
    var hours = series.length ? series[0].points.length : 0;
    var root = svg("svg", {viewBox: "0 0 " + width + " " + height, role: "img",
                           "aria-label": gettext("Cumulative hold percent per table by hour")});
    if (!values.length || !hours) {
      root.appendChild(svg("text", {x: 10, y: 30}, gettext("No wagers yet this gaming day.")));
      return root;
    }
    // Hold swings wildly on a small handle: the scale stops at +-50% and the lines are clipped to it.
    var lo = Math.max(-50, Math.min(-10, Math.floor(Math.min.apply(null, values) / 5) * 5));
    var hi = Math.min(50, Math.max(25, Math.ceil(Math.max.apply(null, values) / 5) * 5));
    var span = Math.max(hours - 1, 1);
    function x(i) { return left + (width - left - right) * i / span; }
    function y(v) { return top + (height - top - bottom) * (hi - v) / (hi - lo); }
    [lo, 0, hi].forEach(function (v) {
      root.appendChild(svg("line", {x1: left, x2: width - right, y1: y(v), y2: y(v), stroke: v === 0 ? "#999" : "#ddd"}));
      root.appendChild(svg("text", {x: left - 4, y: y(v) + 4, "text-anchor": "end"}, v + "%"));
    });
    series[0].points.forEach(function (p, i) {
      if (i % Math.max(1, Math.ceil(hours / 8)) === 0) root.appendChild(svg("text", {x: x(i), y: height - 6, "text-anchor": "middle"}, p.hour));
    });
    series.forEach(function (s, n) {
      var color = COLORS[n % COLORS.length], path = "", pen = "M";
      s.points.forEach(function (p, i) {
        if (p.hold === null) { pen = "M"; return; }
        path += pen + x(i).toFixed(1) + "," + y(Math.max(lo, Math.min(hi, +p.hold))).toFixed(1) + " ";
        pen = "L";
      });
      if (path) root.appendChild(svg("path", {d: path, fill: "none", stroke: color, "stroke-width": 2}));
      root.appendChild(svg("rect", {x: width - right + 10, y: top + n * 16, width: 10, height: 10, fill: color}));
      root.appendChild(svg("text", {x: width - right + 24, y: top + n * 16 + 9}, s.table));
    });
    return root;
  }

  function render(root, data) {
    var url = root.getAttribute("data-violations-url");
    closeShoeUrl = root.getAttribute("data-shoe-close-url") || "";
    gamingDay = data.gaming_day;
    var tiles = document.getElementById("pd-tiles");
    tiles.replaceChildren.apply(tiles, data.tables.map(function (t) { return tile(t, url); }));
    if (!data.tables.length) tiles.appendChild(el("p", {text: gettext("No tables yet.")}));
    var map = document.getElementById("pd-floor");
    map.replaceChildren.apply(map, floor(data.tables));
    var noteList = document.getElementById("pd-notes-list");
    noteList.replaceChildren.apply(noteList, notes(data.shift_notes || []));
    beepOnNewAlarm(data.tables);
    var holder = document.getElementById("pit-hold-chart");
    holder.replaceChildren(chart(data.hold_chart));
    document.getElementById("pit-gaming-day").textContent = data.gaming_day;
    document.getElementById("pit-updated").textContent = new Date(data.generated_at).toLocaleTimeString();
    root.setAttribute("data-generated-at", data.generated_at);
  }

  // The session ended: say so, offer the login, and stop polling (the figures are left as they were).
  function showSignedOut(state, loginUrl) {
    state.replaceChildren(el("strong", {className: "pd-signed-out", text: gettext("Signed out.") + " "}),
                          el("a", {href: loginUrl || "/admin/login/", text: gettext("Log in again")}));
    document.getElementById("pit-dashboard").setAttribute("data-signed-out", "true");
  }

  function start() {
    var root = document.getElementById("pit-dashboard");
    if (!root) return;
    var sound = document.getElementById("pd-sound");
    if (sound) {
      sound.checked = window.localStorage && localStorage.getItem("pd-sound") === "on";
      sound.addEventListener("change", function () {
        if (window.localStorage) localStorage.setItem("pd-sound", sound.checked ? "on" : "off");
      });
    }
    render(root, JSON.parse(document.getElementById("pit-overview").textContent));
    var state = document.getElementById("pit-refresh-state");
    var every = 1000 * (+root.getAttribute("data-refresh") || 5);
    var signedOut = false;
    function poll() {
      fetch(root.getAttribute("data-url"), {credentials: "same-origin", headers: {Accept: "application/json"}})
        .then(function (r) {
          if (r.status === 401) {
            return r.json().then(function (body) { signedOut = true; showSignedOut(state, body.login_url); });
          }
          var type = r.headers.get("Content-Type") || "";
          if (!r.ok || type.indexOf("application/json") !== 0) throw new Error("HTTP " + r.status);
          return r.json().then(function (data) { render(root, data); state.textContent = ""; });
        })
        .catch(function (err) { state.textContent = words(gettext("(refresh failed: %(error)s)"), {error: err.message}); })
        .then(function () { if (!signedOut) setTimeout(poll, every); });
    }
    setTimeout(poll, every);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

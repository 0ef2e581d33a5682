/* Progressive enhancement only: every page is complete without JavaScript.
   1. Tables with class "sortable": a button in each header sorts by that column
      (numbers by data-sort; missing values last), aria-sort tells assistive technology.
   2. The head-to-head picker: opens the pre-rendered page of the chosen pair.
   3. A table wider than its box gets a visible "scroll →" line above it (the box's edge
      shadows say it without JavaScript too). */
(function () {
  "use strict";

  function cellKey(row, index, numeric) {
    var cell = row.cells[index];
    if (!cell) { return null; }
    if (numeric) {
      var raw = cell.getAttribute("data-sort");
      return raw === null || raw === "" ? null : parseFloat(raw);
    }
    return cell.textContent.trim().toLowerCase();
  }

  function sortTable(table, index, numeric, header) {
    var body = table.tBodies[0];
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a, index, numeric), y = cellKey(b, index, numeric);
      if (x === null || y === null) { return x === y ? 0 : (x === null ? 1 : -1); }
      var order = x < y ? -1 : (x > y ? 1 : 0);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  function makeSortable(table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () {
        sortTable(table, index, th.getAttribute("data-kind") === "number", th);
      });
    });
  }

  function setUpPicker(form) {
    var pages = {};  // "A B" -> the page's file name (the site shortens long ones)
    (form.getAttribute("data-pairs") || "").split(",").filter(Boolean).forEach(function (entry) {
      var parts = entry.split(" ");
      pages[parts[0] + " " + parts[1]] = parts[2];
    });
    var message = form.querySelector(".picker-message");
    form.hidden = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var a = form.elements.a.value, b = form.elements.b.value;
      if (a === b) { message.textContent = "Pick two different systems."; return; }
      var page = pages[a + " " + b] || pages[b + " " + a];
      if (page) { window.location.href = page; return; }
      message.textContent = "This pair has no pre-computed page; compare each with a top system below, " +
        "or download the per-question values from the two runs' pages.";
    });
  }

  function scrollCue(wrap) {
    var cue = document.createElement("p");
    cue.className = "scroll-cue";
    cue.setAttribute("aria-hidden", "true");
    cue.textContent = "More columns: scroll \u2192";
    wrap.parentNode.insertBefore(cue, wrap);
    function update() {
      var more = wrap.scrollWidth > wrap.clientWidth + 1;
      var end = wrap.scrollLeft + wrap.clientWidth >= wrap.scrollWidth - 1;
      cue.hidden = !more;
      cue.textContent = end ? "\u2190 scroll back for the first columns" : "More columns: scroll \u2192";
      wrap.classList.toggle("scrolls", more);
    }
    update();
    wrap.addEventListener("scroll", update, {passive: true});
    window.addEventListener("resize", update);
    if (window.ResizeObserver) { new ResizeObserver(update).observe(wrap); }
  }

  document.querySelectorAll("table.sortable").forEach(makeSortable);
  document.querySelectorAll(".table-wrap").forEach(scrollCue);
  document.querySelectorAll("form.picker").forEach(setUpPicker);
}());

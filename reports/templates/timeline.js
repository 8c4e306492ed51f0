// Zoom for the timeline: every time-placed shape carries its x at zoom 1 in
// data-x (and its width in data-w); the slider scales them from the plot's
// left edge. No network, no libraries.
(function () {
  "use strict";
  var svg = document.getElementById("timeline");
  var slider = document.getElementById("zoom");
  if (!svg || !slider) { return; }
  var pad = Number(svg.dataset.pad), width = Number(svg.dataset.width);
  var minorPx = Number(svg.dataset.minorPx);
  var shapes = svg.querySelectorAll("[data-x]");
  var shown = document.getElementById("zoom-value");
  var scroller = document.getElementById("timeline-scroll");
  function zoom(z) {
    var centre = (scroller.scrollLeft + scroller.clientWidth / 2) / Number(svg.getAttribute("width"));
    svg.setAttribute("width", String(2 * pad + (width - 2 * pad) * z));
    shapes.forEach(function (el) {
      var x = pad + (Number(el.dataset.x) - pad) * z;
      var w = el.dataset.w ? Number(el.dataset.w) * z : 0;
      switch (el.tagName) {
      case "rect": el.setAttribute("x", x); el.setAttribute("width", w); break;
      case "line": el.setAttribute("x1", x); el.setAttribute("x2", x); break;
      case "text":
        el.setAttribute("x", x);
        if (el.dataset.need) { el.setAttribute("visibility", w >= Number(el.dataset.need) ? "visible" : "hidden"); }
        break;
      default: el.setAttribute("transform", "translate(" + x + "," + el.dataset.y + ")");
      }
    });
    svg.classList.toggle("show-minor", minorPx * z >= 44);
    shown.textContent = z + "\u00d7";
    scroller.scrollLeft = centre * Number(svg.getAttribute("width")) - scroller.clientWidth / 2;
  }
  slider.addEventListener("input", function () { zoom(Number(slider.value)); });
}());

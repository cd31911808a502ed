// Times arrive in UTC (their title keeps it); each is shown in the browser's own zone.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var format = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"
  });
  document.querySelectorAll("time[datetime]").forEach(function (node) {
    var raw = node.getAttribute("datetime");
    var iso = /[zZ]|[+-]\d\d:?\d\d$/.test(raw) ? raw : raw + "Z";
    var moment = new Date(iso);
    if (!isNaN(moment.getTime())) {
      node.textContent = format.format(moment);
    }
  });
});

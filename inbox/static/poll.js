// Reloads the page when what it shows has changed: the body names a URL
// that answers a fingerprint of the page's letters and the clock.
(function () {
  "use strict";
  var body = document.body;
  var url = body.getAttribute("data-poll");
  var state = body.getAttribute("data-state");
  if (!url) return;
  function busy() {
    var a = document.activeElement;
    return a && (a.tagName === "INPUT" || a.tagName === "SELECT");
  }
  function check() {
    if (document.hidden || busy()) return;
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (s) { if (s && s !== state) location.reload(); })
      .catch(function () {});
  }
  setInterval(check, 2000);
})();

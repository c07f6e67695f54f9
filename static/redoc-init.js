// Starts Redoc on /api/docs/ from a file rather than an inline script, with the system fonts. The schema's
// version stays in the schema; the page's heading is the API's name alone (Redoc would print "(1)" beside
// it), and the download is the bar's link to the schema itself.
(function () {
  "use strict";
  var container = document.getElementById("redoc-container");
  var system = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  var mono = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace";
  var options = {
    theme: { typography: { fontFamily: system, headings: { fontFamily: system }, code: { fontFamily: mono } } },
    hideDownloadButton: true,
    scrollYOffset: "header.api-top",
  };
  fetch(container.dataset.specUrl, { headers: { Accept: "application/json" } })
    .then(function (response) { return response.json(); })
    .then(function (spec) {
      var shown = Object.assign({}, spec, { info: Object.assign({}, spec.info) });
      delete shown.info.version;
      Redoc.init(shown, options, container);
    });
})();

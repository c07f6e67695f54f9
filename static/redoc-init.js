// Starts Redoc on /api/docs/ from a file rather than an inline script, with the system fonts.
(function () {
  "use strict";
  var container = document.getElementById("redoc-container");
  var system = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  var mono = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace";
  Redoc.init(container.dataset.specUrl, {
    theme: { typography: { fontFamily: system, headings: { fontFamily: system }, code: { fontFamily: mono } } },
  }, container);
})();

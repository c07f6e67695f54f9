// Progressive touches only: every page works without this file.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  document.addEventListener("DOMContentLoaded", function () {
    // The window form: choosing a preset submits at once; the date fields only matter for "custom".
    var form = document.querySelector("form.window");
    if (form) {
      var sync = function () {
        var checked = form.querySelector("input[name=window]:checked");
        form.classList.toggle("custom", !!checked && checked.value === "custom");
      };
      form.querySelectorAll("input[name=window]").forEach(function (radio) {
        radio.addEventListener("change", function () {
          sync();
          if (radio.value !== "custom") { form.submit(); }
        });
      });
      form.querySelectorAll("input[type=date]").forEach(function (input) {
        input.addEventListener("input", function () {
          var custom = form.querySelector("input[name=window][value=custom]");
          if (custom) { custom.checked = true; sync(); }
        });
      });
      var harness = form.querySelector("select[name=harness]");
      if (harness) {
        // A lens keeps the window chosen; a custom window without days would only be refused.
        harness.addEventListener("change", function () {
          var checked = form.querySelector("input[name=window]:checked");
          if (!checked || checked.value !== "custom") { form.submit(); }
        });
      }
      sync();
    }
  });
})();

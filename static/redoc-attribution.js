// Redoc draws an "API docs by Redocly" logo from cdn.redoc.ly, which this site's policy refuses (no visitor's
// browser calls a third party), and Chromium logs each refusal as an error. Loaded before Redoc: an image
// source on that host, set as an attribute or as the property, becomes an empty image, so no request is made.
(function () {
  "use strict";
  var blank = "data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==";
  var thirdParty = "https://cdn.redoc.ly/";
  var ours = function (value) { return String(value).indexOf(thirdParty) === 0 ? blank : value; };
  var setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    return setAttribute.call(this, name, this instanceof HTMLImageElement && name === "src" ? ours(value) : value);
  };
  var src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src");
  Object.defineProperty(HTMLImageElement.prototype, "src", {
    configurable: true,
    enumerable: src.enumerable,
    get: src.get,
    set: function (value) { src.set.call(this, ours(value)); },
  });
})();

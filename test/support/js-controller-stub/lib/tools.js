'use strict';
// adapter-core resolves js-controller's tools when it is loaded
module.exports = {};

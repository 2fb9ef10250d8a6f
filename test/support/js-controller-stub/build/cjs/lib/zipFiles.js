'use strict';
// adapter-core resolves this js-controller module when it is loaded
module.exports = {};

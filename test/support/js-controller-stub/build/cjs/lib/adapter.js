'use strict';
// adapter-core resolves the Adapter class when it is loaded; nothing here is ever started
module.exports = class Adapter {};

#!/usr/bin/env node
// `npm start`: rebuild when a source is newer than the build, then run the embedded launcher.
'use strict';
const { join } = require('node:path');
const { buildIfStale } = require('./build-if-stale');

buildIfStale();
require(join(__dirname, '..', 'build', 'scripts', 'embedded.js'));

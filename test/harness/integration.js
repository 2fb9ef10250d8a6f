'use strict';
// End-to-end through @iobroker/testing: the packed adapter is installed next to a real js-controller,
// started as `system.adapter.rest-api.0` and asked over HTTP. Run with mocha; scripts/test.js does so
// beside tap. Never run two harness suites at once: they share one test directory in the tmp dir.
const assert = require('node:assert/strict');
const path = require('node:path');
const { tests } = require('@iobroker/testing');
const { TestHarness } = require('@iobroker/testing/build/tests/integration/lib/harness');

const root = path.join(__dirname, '..', '..');
// Fixed and outside the ephemeral range, so they do not collide with the tap fixtures' random ports
const HTTP_PORT = Number(process.env.HARNESS_HTTP_PORT) || 18193;
process.env.IOBROKER_TESTING_OBJECTS_PORT ||= '19301';
process.env.IOBROKER_TESTING_STATES_PORT ||= '19300';
// The spawned adapter inherits our environment: an IOBROKER_DATA_DIR there would point it at another DB
delete process.env.IOBROKER_DATA_DIR;
// scripts/test.js runs this once per js-controller version (the lowest io-package.json declares and the
// latest); run alone, it takes the lowest
const controllerVersion = process.env.CONTROLLER_VERSION || require('../../scripts/harness-controllers').lowestDeclared();

// Every start of the instance, the harness' own startup test included, listens on loopback and our port
// (io-package.json's defaults are 0.0.0.0:8093, which may be taken by a developer's `npm start`)
const startAdapter = TestHarness.prototype.startAdapter;
TestHarness.prototype.startAdapter = async function (env) {
    await this.changeAdapterConfig('rest-api', { native: { bind: '127.0.0.1', port: HTTP_PORT, auth: false } });
    return startAdapter.call(this, env);
};

// The schema checks download their schemas from GitHub, which these machines cannot reach
tests.packageFiles(root, { ignoreIoPackageValidation: true, ignoreJsonConfigValidation: true });

const STATE_ID = '0_userdata.0.harness.value';
const stateObject = {
    type: 'state',
    common: { name: 'harness value', type: 'number', role: 'value', read: true, write: true },
    native: {},
};

async function request(urlPath, { method = 'GET', body } = {}) {
    const res = await fetch(`http://127.0.0.1:${HTTP_PORT}${urlPath}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, url: res.url, type, text, json: type.includes('json') ? JSON.parse(text) : undefined };
}

tests.integration(root, {
    controllerVersion,
    loglevel: 'info',
    waitBeforeStartupSuccess: 1000,
    defineAdditionalTests({ suite }) {
        suite('HTTP routes of the installed adapter', getHarness => {
            let harness;
            before(async function () {
                this.timeout(60_000);
                harness = getHarness();
                // info.connection turns true once the HTTP server listens
                await harness.startAdapterAndWait(true);
            });

            it('GET /v1/state/system.adapter.rest-api.0.alive answers 200 with val true', async () => {
                const res = await request('/v1/state/system.adapter.rest-api.0.alive');
                assert.equal(res.status, 200, res.text);
                assert.equal(res.json.val, true);
                assert.equal(res.json.id, 'system.adapter.rest-api.0.alive');
            });

            // PUT, not POST: the harness keeps its data dir between runs, so the object may exist already
            it('PUT /v1/object creates (or updates) a state object under 0_userdata.0', async () => {
                const res = await request(`/v1/object/${STATE_ID}`, { method: 'PUT', body: stateObject });
                assert.equal(res.status, 200, res.text);
                const stored = await harness.objects.getObjectAsync(STATE_ID);
                assert.equal(stored?.common?.name, 'harness value');
            });

            it('PATCH /v1/state writes the value, GET reads it back', async () => {
                const patch = await request(`/v1/state/${STATE_ID}`, { method: 'PATCH', body: { val: 42, ack: true } });
                assert.equal(patch.status, 200, patch.text);
                assert.equal(patch.json.val, 42);
                assert.equal((await harness.states.getStateAsync(STATE_ID))?.val, 42, 'the states DB has it');
                const read = await request(`/v1/state/${STATE_ID}`);
                assert.equal(read.status, 200, read.text);
                assert.equal(read.json.val, 42);
                assert.equal(read.json.ack, true);
            });

            it('GET /v1/object/system.adapter.rest-api.0 answers the instance object', async () => {
                const res = await request('/v1/object/system.adapter.rest-api.0');
                assert.equal(res.status, 200, res.text);
                assert.equal(res.json._id, 'system.adapter.rest-api.0');
                assert.equal(res.json.type, 'instance');
                assert.equal(res.json.native.port, HTTP_PORT);
            });

            it('GET /v1/command/getState runs the command', async () => {
                const res = await request(`/v1/command/getState?id=${STATE_ID}`);
                assert.equal(res.status, 200, res.text);
                assert.equal(res.json.result.val, 42);
            });

            it('GET / leads to the docs page', async () => {
                const res = await request('/');
                assert.equal(res.status, 200);
                assert.equal(new URL(res.url).pathname, '/api-doc/');
                assert.match(res.type, /text\/html/);
                assert.match(res.text, /<html/i);
            });

            it('an unknown id answers 404 with a JSON error', async () => {
                const res = await request('/v1/state/0_userdata.0.harness.nothing');
                assert.equal(res.status, 404);
                assert.match(res.type, /application\/json/);
                assert.deepEqual(res.json, { error: 'ID not found', id: '0_userdata.0.harness.nothing' });
            });
        });
    },
});

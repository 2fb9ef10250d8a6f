/* IMPORTANT
 * This snapshot file is auto-generated, but designed for humans.
 * It should be checked into source control and tracked carefully.
 * Re-generate by setting TAP_SNAPSHOT=1 and running tests.
 * Make sure to inspect the output below.  Do not ignore changes!
 */
'use strict'
exports[`build/test/unit/openapi.test.js > TAP > the route table: commands are static routes whose store is the definition > REST routes 1`] = `
Array [
  "GET /",
  "GET /api-doc/",
  "GET /api-doc/:file",
  "GET /api-docs/openapi.json",
  "GET /api-docs/swagger.json",
  "GET /name",
  "GET /favicon.ico",
  "GET /v1/state/:stateId",
  "PATCH /v1/state/:stateId",
  "GET /v1/state/:stateId/toggle",
  "GET /v1/state/:stateId/plain",
  "GET /v1/states",
  "GET /v1/object/:objectId",
  "POST /v1/object/:objectId",
  "PUT /v1/object/:objectId",
  "DELETE /v1/object/:objectId",
  "GET /v1/objects",
  "GET /v1/enum",
  "GET /v1/enum/:enumId",
  "POST /v1/getHistory",
  "GET /v1/getHistory/:stateId",
  "POST /v1/addHistory",
  "GET /v1/addHistory/:stateId",
  "GET /v1/sendto/:instance",
  "POST /v1/sendto/:instance",
  "GET /v1/file/:objectId/*",
  "POST /v1/file/:objectId/*",
  "DELETE /v1/file/:objectId/*",
  "GET /v1/dir/:objectId",
  "GET /v1/dir/:objectId/*",
  "GET /log",
  "GET /log/*",
]
`

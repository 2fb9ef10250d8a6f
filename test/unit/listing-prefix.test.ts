import t from 'tap';
import { listablePrefix } from '../../src/storage/cache/listing-cache';

t.test('only plain prefix patterns without aliases are kept', async t => {
    t.equal(listablePrefix('system.adapter.rest-api.0.*'), 'system.adapter.rest-api.0.');
    t.equal(listablePrefix('0_userdata.0*'), '0_userdata.0');
    for (const pattern of ['*', 'a*', 'alias*', 'alias.0.*', 'system.*.alive', 'system.*.*', 'system.adapter.x', '']) {
        t.equal(listablePrefix(pattern), undefined, pattern);
    }
});

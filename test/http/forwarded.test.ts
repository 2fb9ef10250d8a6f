/*
 * Reading X-Forwarded-* and RFC 7239 Forwarded, tried as a client that wants another address or
 * wants its own host, scheme or path written into what the adapter hands out.
 */
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { configMistakes, normalizeConfig } from '../../src/instance/config';
import { createForwarding, hopAddress, parseForwarded, validHost, type PublicView } from '../../src/http/forwarded';
import { parsePublicUrl, parseTrustEntry, validPrefix } from '../../src/instance/proxy-options';

const request = (peer: string | undefined, headers: Record<string, string | string[]>): IncomingMessage => ({ socket: { remoteAddress: peer }, headers }) as unknown as IncomingMessage;

function viewer(trustProxy: string[], publicUrl = ''): (peer: string | undefined, headers?: Record<string, string | string[]>) => PublicView {
    const forwarding = createForwarding({ trustProxy, publicUrl });
    if (!forwarding) {
        throw new Error('no forwarding');
    }
    return (peer, headers = {}) => forwarding.view(request(peer, headers));
}

t.test('options off: nothing to do per request', async t => {
    t.equal(createForwarding({ trustProxy: [], publicUrl: '' }), undefined);
    t.equal(createForwarding(normalizeConfig({})), undefined, 'the defaults');
});

t.test('trustProxy entries and publicUrl: the valid ones kept, the others named as mistakes', async t => {
    for (const good of ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', '::ffff:10.0.0.1', '0.0.0.0/0', '2001:db8::/128']) {
        t.ok(parseTrustEntry(good), good);
    }
    for (const bad of ['10.0.0.0/33', '::/129', '10.0.0/8', 'localhost', '10.0.0.0/', '10.0.0.0/8/1', '1.2.3.4/-1', '1.2.3.4/ 8', '', 'fd00::/x']) {
        t.notOk(parseTrustEntry(bad), JSON.stringify(bad));
    }
    const config = normalizeConfig({ trustProxy: '127.0.0.1, 10.0.0.0/33 ,fd00::/8', publicUrl: 'ftp://x' });
    t.same(config.trustProxy, ['127.0.0.1', 'fd00::/8'], 'a comma-separated string, malformed entries trust nothing');
    t.equal(config.publicUrl, '');
    t.same(normalizeConfig({ trustProxy: ['::1', ' 10.1.0.0/16 '] }).trustProxy, ['::1', '10.1.0.0/16'], 'a list as admin may store it');
    const mistakes = configMistakes({ trustProxy: '127.0.0.1, 10.0.0.0/33', publicUrl: 'https://home.example.org/a/../b' });
    t.equal(mistakes.length, 2);
    t.match(mistakes[0], /trustProxy: "10\.0\.0\.0\/33" is not an IP address or CIDR/);
    t.match(mistakes[1], /publicUrl: .* is not an http\(s\) URL/);
    t.same(configMistakes({ trustProxy: '', publicUrl: '' }), [], 'the defaults are fine');
    t.same(configMistakes({}), [], 'absent options too');
});

t.test('publicUrl: a plain http(s) base only', async t => {
    t.same(parsePublicUrl('https://home.example.org/iobroker/api'), { origin: 'https://home.example.org', prefix: '/iobroker/api' });
    t.same(parsePublicUrl('https://Home.Example.org:8443/iobroker/api/'), { origin: 'https://home.example.org:8443', prefix: '/iobroker/api' }, 'trailing slash and case folded');
    t.same(parsePublicUrl('http://[::1]:8080/'), { origin: 'http://[::1]:8080', prefix: '' });
    for (const bad of ['ftp://h/x', 'javascript:alert(1)', 'https://u:p@h/x', 'https://h/x?y=1', 'https://h/x#y', 'https://h//x', '/iobroker/api', 'https://h/a/%2e%2e/b', 'not a url', 'https://h/a\\b']) {
        t.equal(parsePublicUrl(bad), undefined, bad);
    }
});

t.test('prefixes and hosts that could leave the path or break a header are refused', async t => {
    t.equal(validPrefix('/iobroker/api'), '/iobroker/api');
    t.equal(validPrefix('/iobroker/api/'), '/iobroker/api');
    t.equal(validPrefix('/'), '');
    for (const bad of ['iobroker', '//evil.example', '/a//b', '/a/../b', '/..', '/a/./b', '/a\r\nSet-Cookie: x=1', '/a b', '/a?b', '/a#b', '/a>b', '/a"b', '/a\\b', '/%2e%2e/x', '/a%2fb', '/a%zz', 'https://evil.example/x', '', '/' + 'a'.repeat(600)]) {
        t.equal(validPrefix(bad), undefined, JSON.stringify(bad));
    }
    t.equal(validHost('home.example.org'), 'home.example.org');
    t.equal(validHost('Home.Example.org:8443'), 'home.example.org:8443');
    t.equal(validHost('[2001:db8::1]:443'), '[2001:db8::1]:443');
    t.equal(validHost('iobroker_api'), 'iobroker_api', 'docker service names');
    for (const bad of ['evil.example/path', 'a@b', 'h\r\nX: 1', 'h x', 'h:port', '', 'h:123456', '-h', 'h..x', 'h?x', 'h#x', '[::1', '<h>']) {
        t.equal(validHost(bad), undefined, JSON.stringify(bad));
    }
});

t.test('hops: addresses with brackets and ports, nothing else', async t => {
    t.equal(hopAddress(' 192.0.2.60 '), '192.0.2.60');
    t.equal(hopAddress('192.0.2.60:4711'), '192.0.2.60');
    t.equal(hopAddress('[2001:db8:cafe::17]:4711'), '2001:db8:cafe::17');
    t.equal(hopAddress('[2001:db8:cafe::17]'), '2001:db8:cafe::17');
    t.equal(hopAddress('2001:db8:cafe::17'), '2001:db8:cafe::17');
    t.equal(hopAddress('fe80::1%eth0'), 'fe80::1', 'a zone names an interface, not a client');
    for (const bad of ['unknown', '_hidden', '', 'example.org', '1.2.3', '[1.2.3.4', '1.2.3.4.5']) {
        t.equal(hopAddress(bad), undefined, JSON.stringify(bad));
    }
});

t.test('RFC 7239 Forwarded: elements, pairs, quoted values', async t => {
    t.same(
        parseForwarded('for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8:cafe::17]:4711";host="h.example:8443"'),
        [
            { for: '192.0.2.60', proto: 'http', by: '203.0.113.43' },
            { for: '[2001:db8:cafe::17]:4711', host: 'h.example:8443' },
        ],
    );
    t.same(parseForwarded('for="a,b;c";proto=https'), [{ for: 'a,b;c', proto: 'https' }], 'separators inside quotes');
    t.same(parseForwarded('for="a\\"b"'), [{ for: 'a"b' }], 'escapes');
    t.same(parseForwarded('junk;;,for=1.2.3.4,,'), [{ for: '1.2.3.4' }], 'empty and valueless parts skipped');
    t.equal(parseForwarded('for="unterminated'), undefined, 'an unterminated quote makes the header unreadable');
    // what a client writes, then what an appending proxy adds: the quote must not swallow the proxy's part
    t.equal(parseForwarded('for=198.51.100.66;proto=https;host=evil.example;x=", for=192.0.2.10'), undefined, 'an open quote hiding the proxy element');
    t.equal(parseForwarded('for="1.2.3.4"x, for=5.6.7.8'), undefined, 'text after a closing quote');
    t.same(parseForwarded('for=1.2.3.4;'), [{ for: '1.2.3.4' }], 'a trailing separator keeps the last element');
    t.same(parseForwarded('for=1.1.1.1;for=2.2.2.2'), [{ for: '1.1.1.1' }], 'a repeated key: the first counts');
    t.same(Object.keys(parseForwarded('__proto__=x;for=1.2.3.4')![0]).sort(), ['__proto__', 'for'], 'no prototype games');
});

t.test('an untrusted peer: every forwarding header ignored', async t => {
    const view = viewer(['10.0.0.0/8']);
    const headers = {
        'x-forwarded-for': '10.0.0.7, 192.0.2.1',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-prefix': '/evil',
        forwarded: 'for=192.0.2.9;proto=https;host=evil.example',
    };
    t.same(view('203.0.113.5', headers), { address: '203.0.113.5' });
    t.same(view('11.0.0.1', headers), { address: '11.0.0.1' }, 'just outside the CIDR');
    t.same(view(undefined, headers), { address: 'unknown' }, 'a socket already gone');
    t.same(viewer(['10.0.0.0/8'], 'https://pub.example/api')('203.0.113.5', headers), { address: '203.0.113.5' }, 'publicUrl is for requests through the proxy');
});

t.test('X-Forwarded-For from a trusted proxy: walked from the right, past trusted hops', async t => {
    const view = viewer(['10.0.0.0/8', '::1']);
    t.equal(view('10.0.0.1', { 'x-forwarded-for': '192.0.2.1' }).address, '192.0.2.1');
    t.equal(view('10.0.0.1', { 'x-forwarded-for': '6.6.6.6, 192.0.2.1' }).address, '192.0.2.1', 'what the client wrote itself stays left of the real hop');
    t.equal(view('10.0.0.1', { 'x-forwarded-for': '6.6.6.6, 192.0.2.1, 10.0.0.2,10.9.9.9' }).address, '192.0.2.1', 'a chain of trusted proxies');
    t.equal(view('10.0.0.1', { 'x-forwarded-for': '10.0.0.3, 10.0.0.2' }).address, '10.0.0.3', 'all trusted: the leftmost');
    t.equal(view('10.0.0.1', { 'x-forwarded-for': '192.0.2.1, garbage, 10.0.0.2' }).address, '10.0.0.2', 'garbage: the trusted hop that passed it on');
    t.equal(view('10.0.0.1', { 'x-forwarded-for': 'garbage' }).address, '10.0.0.1', 'garbage only: the proxy itself');
    t.equal(view('10.0.0.1', { 'x-forwarded-for': '' }).address, '10.0.0.1');
    t.equal(view('10.0.0.1', {}).address, '10.0.0.1', 'no header: the proxy');
    t.equal(view('::1', { 'x-forwarded-for': '[2001:db8::5]:1234' }).address, '2001:db8::5');
    t.equal(view('::ffff:10.0.0.1', { 'x-forwarded-for': '192.0.2.1' }).address, '192.0.2.1', 'an IPv4-mapped peer');
    t.equal(view('10.0.0.1', { 'x-forwarded-for': '::ffff:10.0.0.4, 192.0.2.1' }).address, '192.0.2.1');
    t.equal(view('10.0.0.1', { 'x-forwarded-for': '192.0.2.7, ::ffff:10.0.0.4' }).address, '192.0.2.7', 'an IPv4-mapped trusted hop is skipped');
    t.equal(view('10.0.0.1', { 'x-forwarded-for': '192.0.2.1', forwarded: 'for=6.6.6.6' }).address, '192.0.2.1', 'X-Forwarded-For wins over a Forwarded the client may have sent');
});

t.test('Forwarded from a trusted proxy: the element of the proxy that saw the client', async t => {
    const view = viewer(['127.0.0.1']);
    t.same(view('127.0.0.1', { forwarded: 'for=192.0.2.60;proto=https;host=home.example.org' }), { address: '192.0.2.60', origin: 'https://home.example.org', prefix: undefined });
    t.same(
        view('127.0.0.1', { forwarded: 'for=6.6.6.6;proto=http;host=evil.example, for="[2001:db8:cafe::17]:4711";proto=https;host=home.example.org' }),
        { address: '2001:db8:cafe::17', origin: 'https://home.example.org', prefix: undefined },
        "not the client's own element",
    );
    t.equal(view('127.0.0.1', { forwarded: 'for=unknown' }).address, '127.0.0.1', 'an obfuscated client: the proxy');
    t.equal(view('127.0.0.1', { forwarded: 'for=_abc, for=127.0.0.1' }).address, '127.0.0.1');
    t.same(view('127.0.0.1', { forwarded: 'for=192.0.2.60;proto=gopher;host="a/b"' }), { address: '192.0.2.60', origin: undefined, prefix: undefined }, 'invalid proto and host ignored');
});

t.test('public origin and prefix from a trusted proxy, validated', async t => {
    const view = viewer(['127.0.0.1']);
    const trusted = (headers: Record<string, string>) => view('127.0.0.1', headers);
    t.same(trusted({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'home.example.org', 'x-forwarded-prefix': '/iobroker/api/' }), {
        address: '127.0.0.1',
        origin: 'https://home.example.org',
        prefix: '/iobroker/api',
    });
    // a proxy that appends: the client's own value comes first, the proxy's last
    t.equal(trusted({ 'x-forwarded-host': 'evil.example, b.example' }).origin, 'http://b.example', 'the host the nearest proxy set');
    t.equal(trusted({ 'x-forwarded-prefix': '/evil, /iobroker/api', 'x-forwarded-host': 'b.example' }).prefix, '/iobroker/api', 'and its prefix');
    t.equal(trusted({ 'x-forwarded-proto': 'http, HTTPS', host: 'home.example.org' }).origin, 'https://home.example.org', 'the proto alone: the Host header names the host');
    t.equal(trusted({ 'x-forwarded-proto': 'https', host: 'bad/host' }).origin, undefined, 'no valid host: no origin');
    t.equal(trusted({ 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example/x' }).origin, undefined);
    t.equal(trusted({ 'x-forwarded-proto': 'https\r\nX-Evil: 1', 'x-forwarded-host': 'h.example' }).origin, 'http://h.example', 'a proto with CRLF is no proto');
    for (const prefix of ['//evil.example', '/a/../b', 'relative', '/a b', '/a>; rel="x"']) {
        t.equal(trusted({ 'x-forwarded-prefix': prefix }).prefix, undefined, prefix);
    }
    t.same(trusted({}), { address: '127.0.0.1', origin: undefined, prefix: undefined }, 'no headers: as the adapter sees it');
});

t.test('publicUrl overrides what the proxy says; the client address still comes from it', async t => {
    const view = viewer(['127.0.0.1'], 'https://home.example.org/iobroker/api');
    t.same(view('127.0.0.1', { 'x-forwarded-for': '192.0.2.1', 'x-forwarded-host': 'other.example', 'x-forwarded-prefix': '/other' }), {
        address: '192.0.2.1',
        origin: 'https://home.example.org',
        prefix: '/iobroker/api',
    });
    const alone = viewer([], 'https://home.example.org/iobroker/api');
    t.same(alone('192.0.2.8', { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-prefix': '/other' }), { address: '192.0.2.8', origin: 'https://home.example.org', prefix: '/iobroker/api' }, 'without trustProxy: every request, no header read');
});

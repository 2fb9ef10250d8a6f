// The history chart: ids and range come from the page's URL, so a chart can be bookmarked; the
// values from ../v1/history with the browser's credentials; drawn with uPlot.
(function () {
    'use strict';
    var COLORS = ['#1976d2', '#d32f2f', '#388e3c', '#f57c00', '#7b1fa2', '#0097a7', '#5d4037', '#c2185b'];
    var form = document.getElementById('range');
    var message = document.getElementById('message');
    var chartBox = document.getElementById('chart');
    var plot = null;
    var login = document.getElementById('login');

    // Basic credentials from the form, kept in the page only; none when the server needs none (auth
    // off, or web's session): then the fields stay hidden
    function headers() {
        var result = { Accept: 'application/json' };
        var user = form.elements.user.value;
        if (user) {
            var bytes = new TextEncoder().encode(user + ':' + form.elements.password.value);
            result.Authorization = 'Basic ' + btoa(String.fromCharCode.apply(null, Array.from(bytes)));
        }
        return result;
    }

    function say(text, isError) {
        message.textContent = text;
        message.className = isError ? 'error' : '';
    }

    // numbers as they are, booleans as 1 and 0; text cannot be drawn
    function number(val) {
        if (typeof val === 'number' && isFinite(val)) {
            return val;
        }
        return typeof val === 'boolean' ? (val ? 1 : 0) : null;
    }

    function draw(answer, ids) {
        var tables = [];
        var series = [{}];
        var problems = [];
        var points = 0;
        ids.forEach(function (id, i) {
            var values = answer[id];
            if (!Array.isArray(values)) {
                problems.push(id + ': ' + (values && values.error ? values.error : 'no values'));
                return;
            }
            var xs = [];
            var ys = [];
            values.forEach(function (p) {
                xs.push(p.ts / 1000);
                ys.push(number(p.val));
            });
            points += ys.filter(function (y) { return y !== null; }).length;
            tables.push([xs, ys]);
            series.push({ label: id, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true });
        });
        if (plot) {
            plot.destroy();
            plot = null;
        }
        chartBox.dataset.points = String(points);
        if (!tables.length) {
            say(problems.join('; ') || 'Nothing to draw', true);
            return;
        }
        var data = tables.length === 1 ? tables[0] : uPlot.join(tables);
        var width = Math.max(300, chartBox.clientWidth || document.body.clientWidth - 32);
        plot = new uPlot({ width: width, height: 360, series: series, scales: { x: { time: true } } }, data, chartBox);
        say(problems.length ? problems.join('; ') : points + ' values', problems.length > 0);
    }

    function show() {
        var ids = form.elements.ids.value.split(',').map(function (id) { return id.trim(); }).filter(Boolean);
        if (!ids.length) {
            say('Name one or more states', false);
            return;
        }
        var query = new URLSearchParams({ ids: ids.join(','), start: form.elements.start.value || '-24h', end: form.elements.end.value || 'now' });
        history.replaceState(null, '', '?' + query.toString());
        say('Loading…', false);
        fetch('../v1/history?' + query.toString(), { headers: headers(), credentials: 'same-origin' })
            .then(function (res) {
                return res.json().then(function (body) {
                    if (res.status === 401) {
                        // the API asks no browser for credentials: the page does, and sends them itself
                        login.hidden = false;
                        form.elements.user.focus();
                    }
                    if (!res.ok) {
                        var what = body && body.error ? body.error : res.statusText;
                        throw new Error(res.status + ': ' + what + (body && body.id ? ' (' + body.id + ')' : ''));
                    }
                    draw(body, ids);
                });
            })
            .catch(function (err) {
                if (plot) {
                    plot.destroy();
                    plot = null;
                }
                chartBox.dataset.points = '0';
                say(err.message, true);
            });
    }

    var params = new URLSearchParams(location.search);
    ['ids', 'start', 'end'].forEach(function (name) {
        if (params.get(name)) {
            form.elements[name].value = params.get(name);
        }
    });
    form.addEventListener('submit', function (event) {
        event.preventDefault();
        show();
    });
    if (form.elements.ids.value) {
        show();
    }
})();

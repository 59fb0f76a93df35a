// strata monitor dashboard: one page; the path picks the view.  Every view reads the server's JSON endpoints
// (/api/...) or its server-rendered SVG charts (/chart/<name>.svg).  Data is put into the page with
// textContent, never as HTML; only the charts, which the server renders and escapes, are inserted as markup.
'use strict';

// The page may have been opened with credentials in its URL (http://user:pw@host/): requests are built on
// location.origin, which carries none, and the browser adds the cached basic-auth login itself.
function api(path) {
  return fetch(new URL(path, location.origin), {credentials: 'same-origin'}).then(function (r) {
    if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
    return path.indexOf('/chart/') === 0 ? r.text() : r.json();
  });
}

function el(tag, attrs, text) {
  var e = document.createElement(tag);
  if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function si(v) {
  var p = ['', 'k', 'M', 'G', 'T'], i = 0;
  v = Number(v);
  while (Math.abs(v) >= 1000 && i < p.length - 1) { v /= 1000; i++; }
  return (Math.round(v * 100) / 100) + p[i];
}

// A table from rows: cols is [[key, title, kind]] with kind 'num' for right-aligned numbers.
function table(cols, rows, rowClass) {
  var t = el('table'), hr = el('tr');
  cols.forEach(function (c) { hr.appendChild(el('th', null, c[1])); });
  t.appendChild(hr);
  rows.forEach(function (r) {
    var tr = el('tr');
    if (rowClass) { var cl = rowClass(r); if (cl) tr.className = cl; }
    cols.forEach(function (c) {
      var v = r[c[0]];
      var td = el('td', c[2] ? {'class': c[2]} : null, c[2] === 'num' && typeof v === 'number' ? si(v) : v);
      if (c[2] === 'num') td.title = String(v);
      tr.appendChild(td);
    });
    t.appendChild(tr);
  });
  return t;
}

function show(title, nodes) {
  var m = document.getElementById('main');
  m.textContent = '';
  m.appendChild(el('h2', null, title));
  nodes.forEach(function (n) { m.appendChild(n); });
}

function fail(e) {
  var m = document.getElementById('main');
  m.textContent = '';
  m.appendChild(el('p', {'class': 'error'}, 'could not load: ' + e.message));
}

var chartWindow = 600, timer = null;

function drawCharts(box, charts) {
  charts.forEach(function (c) {
    var holder = document.getElementById('chart-' + c.name);
    if (!holder) { holder = el('div', {'class': 'chartbox', id: 'chart-' + c.name}); box.appendChild(holder); }
    api('/chart/' + c.name + '.svg?window=' + chartWindow).then(function (svg) { holder.innerHTML = svg; })
      .catch(fail);
  });
}

function overview() {
  Promise.all([api('/api/overview'), api('/api/charts')]).then(function (res) {
    var o = res[0], charts = res[1];
    var cards = el('div', {'class': 'cards'});
    [['version', 'Version'], ['Uptime', 'Uptime (s)'], ['Threads_connected', 'Threads connected'],
     ['Threads_running', 'Threads running'], ['Questions', 'Questions'], ['Slow_queries', 'Slow queries'],
     ['Max_used_connections', 'Max used connections'], ['Innodb_buffer_pool_pages_dirty', 'Dirty pages']
    ].forEach(function (k) {
      var c = el('div', {'class': 'card'});
      c.appendChild(el('div', {'class': 'v'}, typeof o[k[0]] === 'number' ? si(o[k[0]]) : o[k[0]]));
      c.appendChild(el('div', {'class': 'k'}, k[1]));
      cards.appendChild(c);
    });
    var win = el('div', {'class': 'windows'});
    [[300, '5 min'], [600, '10 min'], [o.ring_seconds, '1 hour'], [86400, '1 day'], [604800, '7 days']].forEach(function (w) {
      var b = el('button', null, w[1]);
      b.addEventListener('click', function () { chartWindow = w[0]; drawCharts(box, charts); });
      win.appendChild(b);
    });
    var box = el('div', {'class': 'charts'});
    var note = el('p', {'class': 'note'}, 'Charts up to an hour: samples every ' + o.sample_seconds +
      ' s kept in memory; 1 day and 7 days: strata_monitor.status_history (a sample every monitor_interval s).');
    show('Overview', [cards, win, box, note]);
    drawCharts(box, charts);
    timer = setInterval(function () { drawCharts(box, charts); }, 5000);
  }).catch(fail);
}

function variables() {
  api('/api/variables').then(function (rows) {
    var changed = rows.filter(function (r) { return r.changed; }).length;
    show('Variables', [
      el('p', {'class': 'note'}, changed + ' of ' + rows.length + ' variables differ from their defaults (highlighted).'),
      table([['name', 'Variable'], ['value', 'Value', 'value'], ['default', 'Default']], rows,
            function (r) { return r.changed ? 'changed' : ''; })]);
  }).catch(fail);
}

function processlist() {
  api('/api/processlist').then(function (rows) {
    show('Process list', [table([['id', 'Id', 'num'], ['user', 'User'], ['host', 'Host'], ['db', 'db'],
      ['command', 'Command'], ['time', 'Time', 'num'], ['state', 'State'], ['info', 'Info', 'sql']], rows)]);
  }).catch(fail);
}

function digests() {
  api('/api/digests?limit=50').then(function (rows) {
    show('Top statement digests (by total time)', [table([['schema', 'Schema'], ['text', 'Digest text', 'sql'],
      ['count', 'Count', 'num'], ['sum_ms', 'Total ms', 'num'], ['avg_ms', 'Avg ms', 'num'],
      ['p95_ms', 'p95 ms', 'num'], ['p99_ms', 'p99 ms', 'num'], ['max_ms', 'Max ms', 'num'],
      ['rows_examined', 'Rows examined', 'num'], ['rows_sent', 'Rows sent', 'num'],
      ['errors', 'Errors', 'num'], ['warnings', 'Warnings', 'num'], ['no_index_used', 'No index', 'num']], rows)]);
  }).catch(fail);
}

function tablespaces() {
  api('/api/tablespaces').then(function (rows) {
    rows.forEach(function (r) {
      r.used_pct = r.total_extents ? Math.round(1000 * (1 - r.free_extents / r.total_extents)) / 10 : 0;
      r.full_in = r.days_to_full === null ? 'not growing' : (Math.round(r.days_to_full * 10) / 10) + ' days';
      r.growth = si(r.growth_bytes_per_day) + 'B';
    });
    show('Tablespaces and data files', [table([['file_type', 'Type'], ['tablespace', 'Tablespace'],
      ['logfile_group', 'Logfile group'], ['file', 'File'], ['extent_size', 'Extent size', 'num'],
      ['total_extents', 'Total extents', 'num'], ['free_extents', 'Free extents', 'num'],
      ['used_pct', 'Used %', 'num'], ['size', 'Size', 'num'], ['autoextend', 'Autoextend'], ['growth', 'Growth per day', 'num'],
      ['full_in', 'Full in', 'num']], rows, function (r) { return r.days_to_full !== null && r.days_to_full < 7 ? 'changed' : ''; }),
      el('p', {'class': 'note'}, 'Growth: used extents over the last day of strata_monitor history; full: free ' +
        'extents plus the room to autoextend (to the maximum size, else the free disk), at that rate.')]);
  }).catch(fail);
}

function binlogs() {
  api('/api/binlogs').then(function (rows) {
    rows.forEach(function (r) {
      r.first = r.first_time ? new Date(r.first_time * 1000).toISOString() : '';
      r.last = r.last_time ? new Date(r.last_time * 1000).toISOString() : '';
    });
    var total = rows.reduce(function (s, r) { return s + r.size; }, 0);
    show('Binary log files', [el('p', {'class': 'note'}, rows.length + ' files, ' + si(total) + 'B'),
      table([['name', 'Log name'], ['size', 'Size', 'num'], ['disk_size', 'On disk', 'num'],
             ['compressed', 'Compressed'], ['active', 'Active'], ['first', 'First event'], ['last', 'Last event']],
            rows)]);
  }).catch(fail);
}

function nullable(v, f) { return v === null || v === undefined ? '' : (f ? f(v) : v); }

function replicas() {
  api('/api/replicas').then(function (r) {
    var parts = [el('h3', null, 'Replicas reading this server\'s binary log'),
      r.replicas.length ? table([['id', 'Connection'], ['server_id', 'Server id', 'num'], ['user', 'User'],
                                 ['host', 'Host'], ['time', 'Connected (s)', 'num']], r.replicas)
                        : el('p', {'class': 'note'}, 'No replica is connected.'),
      el('h3', null, 'This server as a replica')];
    if (r.source) {
      var s = r.source;
      s.lag = nullable(s.seconds_behind_master, function (v) { return v + ' s'; });
      s.source_addr = s.host + ':' + s.port;
      parts.push(table([['source_addr', 'Source'], ['io_running', 'IO thread'], ['sql_running', 'SQL thread'],
                        ['lag', 'Seconds behind'], ['lag_ms', 'Lag (ms)', 'num'], ['gtid_io_pos', 'GTIDs received'],
                        ['last_io_error', 'Last IO error'], ['last_sql_error', 'Last SQL error']], [s],
                       function (x) { return x.io_running !== 'Yes' || x.sql_running !== 'Yes' ? 'changed' : ''; }));
    } else {
      parts.push(el('p', {'class': 'note'}, 'This server does not replicate (no CHANGE MASTER TO).'));
    }
    show('Replication', parts);
  }).catch(fail);
}

function fleet() {
  api('/api/fleet').then(function (rows) {
    rows.forEach(function (r) {
      r.state = r.server === 'all' ? '' : (r.up === 1 ? 'up' : r.up === 0 ? 'down' : 'no sample');
      r.qps = nullable(r.questions_per_second, function (v) { return Math.round(v * 10) / 10; });
      r.lag = nullable(r.replica_lag_seconds);
      r.seen = r.server === 'all' || !r.ts ? '' : new Date(r.ts * 1000).toISOString();
    });
    var box = el('div', {'class': 'charts'});
    show('Fleet', [table([['server', 'Server'], ['state', 'State'], ['seen', 'Last sample'],
                          ['uptime', 'Uptime (s)', 'num'], ['threads_connected', 'Threads connected', 'num'],
                          ['threads_running', 'Threads running', 'num'], ['qps', 'Queries / s', 'num'],
                          ['lag', 'Replica lag (s)', 'num']], rows,
                         function (r) { return r.state === 'down' ? 'changed' : ''; }),
                   el('p', {'class': 'note'}, 'Servers are added with INSERT INTO strata_monitor.servers and ' +
                      'sampled every monitor_interval seconds; the last row and the charts sum them all (last hour).'),
                   box]);
    ['queries', 'threads_connected', 'threads_running'].forEach(function (name) {
      var holder = el('div', {'class': 'chartbox', id: 'chart-' + name});
      box.appendChild(holder);
      api('/chart/' + name + '.svg?server=all&window=3600').then(function (svg) { holder.innerHTML = svg; })
        .catch(fail);
    });
  }).catch(fail);
}

var views = {'/': overview, '/variables': variables, '/processlist': processlist, '/digests': digests,
             '/tablespaces': tablespaces, '/binlogs': binlogs, '/replicas': replicas, '/fleet': fleet};

document.querySelectorAll('nav a').forEach(function (a) {
  if (a.getAttribute('href') === location.pathname) a.className = 'current';
});
(views[location.pathname] || overview)();

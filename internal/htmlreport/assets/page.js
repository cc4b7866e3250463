// dbgauge report: draws the charts whose ECharts options Go wrote as JSON,
// and makes tables sortable. Functions cannot travel in JSON, so options name
// them: "fn:NAME" for formatters, renderItem: "NAME" for custom series.
(function () {
  'use strict';

  // Bar layout shared by the bar series (set in Go) and the error bars drawn
  // over them, so each whisker lands on its bar.
  var CATEGORY_GAP = 0.2, BAR_GAP = 0.3;

  function num(v) {
    if (v === null || v === undefined || isNaN(v)) { return '–'; }
    var a = Math.abs(v);
    if (a >= 100 || Number.isInteger(v)) { return Math.round(v).toLocaleString('en-US'); }
    if (a >= 10) { return v.toFixed(1); }
    if (a >= 1) { return v.toFixed(2); }
    return String(Number(v.toPrecision(2)));
  }

  // x = log10(1/(1-p)): 0.301 is 50 %, 1 is 90 %, 2 is 99 %, 3 is 99.9 %.
  function percentile(x) {
    var p = 100 * (1 - Math.pow(10, -x));
    var digits = Math.max(0, Math.round(x) - 2);
    if (digits === 0 && Math.abs(p - Math.round(p)) > 0.05) { digits = 1; }
    return p.toFixed(digits) + '%';
  }

  function ms(v) { return v === null || v === undefined ? '–' : num(v) + ' ms'; }

  var fns = {
    num: num,
    ms: ms,
    percentile: percentile,
    seconds: function (v) { return num(v) + ' s'; },
    // Bytes in powers of 1024, as docs/data.md counts sizes: 32 MiB.
    bytes: function (v) {
      var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
      while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
      return String(Number(v.toPrecision(3))) + ' ' + units[i];
    },
    ratio: function (v) { return String(Number(v.toPrecision(3))) + '×'; },
    // Item tooltips whose text Go wrote (already escaped) into data[i].tip.
    tip: function (p) { return (p.data && p.data.tip) || p.name; },
    // Axis tooltip of the percentile plot.
    percentileTip: function (ps) {
      if (!ps.length) { return ''; }
      var out = percentile(ps[0].value[0]);
      ps.forEach(function (p) { out += '<br>' + p.marker + p.seriesName + ': ' + ms(p.value[1]); });
      return out;
    },
    // Axis tooltip of per-second charts: the second, then each series.
    secondTip: function (ps) {
      if (!ps.length) { return ''; }
      var out = 'at ' + num(ps[0].value[0]) + ' s';
      ps.forEach(function (p) {
        var v = p.value[1], unit = (p.data && p.data.unit) || (p.seriesName.indexOf('p') === 0 ? 'ms' : '');
        out += '<br>' + p.marker + p.seriesName + ': ' + (unit === 'ms' ? ms(v) : num(v));
      });
      return out;
    }
  };

  // errorBars draws a whisker from lo to hi for data [x, lo, hi, slot, slots,
  // maxWidth] (vertical) or [y, lo, hi, slot, slots, maxWidth] (horizontal),
  // offset to the slot-th of slots bars sharing a category, laid out as
  // ECharts lays out bars: widths shrink to fit the band, up to maxWidth, and
  // the group is centred.
  function errorBars(horizontal) {
    return function (params, api) {
      var at = api.value(0), lo = api.value(1), hi = api.value(2);
      var slot = api.value(3) || 0, slots = api.value(4) || 1, maxWidth = api.value(5) || 0;
      var a = horizontal ? api.coord([lo, at]) : api.coord([at, lo]);
      var b = horizontal ? api.coord([hi, at]) : api.coord([at, hi]);
      var band = horizontal ? api.size([0, 1])[1] : api.size([1, 0])[0];
      var off = 0, cap = 5;
      if (slots > 1) {
        var w = band * (1 - CATEGORY_GAP) / (slots + (slots - 1) * BAR_GAP);
        if (maxWidth > 0 && w > maxWidth) { w = maxWidth; }
        var total = slots * w + (slots - 1) * w * BAR_GAP;
        off = -total / 2 + slot * w * (1 + BAR_GAP) + w / 2;
        cap = Math.max(2, Math.min(6, w / 4));
      }
      var style = { stroke: api.visual('color'), lineWidth: 1.5, fill: null };
      var lines;
      if (horizontal) {
        var y = a[1] + off;
        lines = [[a[0], y, b[0], y], [a[0], y - cap, a[0], y + cap], [b[0], y - cap, b[0], y + cap]];
      } else {
        var x = a[0] + off;
        lines = [[x, a[1], x, b[1]], [x - cap, a[1], x + cap, a[1]], [x - cap, b[1], x + cap, b[1]]];
      }
      return {
        type: 'group',
        children: lines.map(function (l) {
          return { type: 'line', shape: { x1: l[0], y1: l[1], x2: l[2], y2: l[3] }, style: style };
        })
      };
    };
  }

  var renderers = { errorBars: errorBars(false), errorBarsH: errorBars(true) };

  function resolve(v) {
    if (Array.isArray(v)) { return v.map(resolve); }
    if (v && typeof v === 'object') {
      var out = {};
      Object.keys(v).forEach(function (k) {
        var x = v[k];
        if (k === 'renderItem' && typeof x === 'string') {
          if (!renderers[x]) { throw new Error('unknown renderer ' + x); }
          out[k] = renderers[x];
        } else {
          out[k] = resolve(x);
        }
      });
      return out;
    }
    if (typeof v === 'string' && v.indexOf('fn:') === 0) {
      var f = fns[v.slice(3)];
      if (!f) { throw new Error('unknown function ' + v); }
      return f;
    }
    return v;
  }

  function drawCharts() {
    var nodes = Array.prototype.slice.call(document.querySelectorAll('[data-chart]'));
    var body = document.body, drawn = 0, failed = 0, charts = [];
    function settle() {
      body.setAttribute('data-charts-count', String(drawn));
      if (drawn + failed === nodes.length) {
        body.setAttribute('data-charts', failed ? 'failed' : 'drawn');
      }
    }
    nodes.forEach(function (el) {
      try {
        var src = document.getElementById(el.getAttribute('data-chart'));
        var option = resolve(JSON.parse(src.textContent));
        var chart = echarts.init(el, null, { renderer: 'canvas' });
        var done = false;
        chart.on('finished', function () {
          if (done) { return; }
          done = true;
          drawn++;
          el.setAttribute('data-drawn', 'true');
          settle();
        });
        chart.setOption(option);
        charts.push(chart);
      } catch (e) {
        failed++;
        console.error('dbgauge: chart ' + el.getAttribute('data-chart') + ' failed:', e && e.stack ? e.stack : e);
        settle();
      }
    });
    settle();
    var pending;
    window.addEventListener('resize', function () {
      clearTimeout(pending);
      pending = setTimeout(function () { charts.forEach(function (c) { c.resize(); }); }, 100);
    });
  }

  function sortable(tbl) {
    var heads = tbl.querySelectorAll('thead th');
    heads.forEach(function (th, col) {
      function sort() {
        var dir = th.getAttribute('data-dir') === 'asc' ? 'desc' : 'asc';
        heads.forEach(function (h) { h.removeAttribute('data-dir'); });
        th.setAttribute('data-dir', dir);
        var body = tbl.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        function key(r) {
          var c = r.cells[col];
          if (!c) { return ''; }
          var s = c.getAttribute('data-sort');
          if (s !== null) {
            var n = parseFloat(s);
            return isNaN(n) ? s.toLowerCase() : n;
          }
          return c.textContent.trim().toLowerCase();
        }
        rows.sort(function (a, b) {
          var x = key(a), y = key(b), r;
          if (typeof x === 'number' && typeof y === 'number') { r = x - y; } else { r = String(x).localeCompare(String(y), 'en', { numeric: true }); }
          return dir === 'asc' ? r : -r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
    });
  }

  function start() {
    try {
      document.querySelectorAll('table.sortable').forEach(sortable);
    } catch (e) {
      console.error('dbgauge: sortable tables failed:', e);
    }
    try {
      drawCharts();
    } catch (e) {
      console.error('dbgauge: charts failed:', e);
      document.body.setAttribute('data-charts', 'failed');
    }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());

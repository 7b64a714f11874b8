// kvcat report page: draws the charts kvcat described (Vega-Lite specs with their data
// inline) and turns the catalog's rows into a table that sorts and filters. Everything it
// reads is in the page; it requests nothing. When every chart is drawn it sets
// <body data-state="drawn"> (or "failed"), which the browser test waits for.
(function () {
  'use strict';

  const content = JSON.parse(document.getElementById('report-content').textContent);
  const main = document.getElementById('report');

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. A text
  // that begins with = + - @, a tab or a CR gets a leading ' so that a spreadsheet reads it
  // as text, not as a formula (OWASP, "CSV Injection"); `kvcat report --no-formula-guard`
  // turns that off. Numbers are never changed.
  function csv(rows) {
    if (rows.length === 0) return '';
    const columns = Object.keys(rows[0]);
    const guard = content.formula_guard !== false;
    const field = (v) => {
      let s = v === null || v === undefined ? '' : String(v);
      if (guard && typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = "'" + s;
      return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
    };
    const lines = [columns.map(field).join(',')];
    for (const row of rows) lines.push(columns.map((c) => field(row[c])).join(','));
    return lines.join('\r\n') + '\r\n';
  }

  function downloadLink(name, rows) {
    const a = el('a', { href: '#', class: 'csv', download: name + '.csv' }, name + '.csv');
    a.addEventListener('click', (event) => {
      // The file is made when asked for, from the rows the chart was drawn from.
      if (a.href.startsWith('blob:')) URL.revokeObjectURL(a.href);
      a.href = URL.createObjectURL(new Blob([csv(rows)], { type: 'text/csv' }));
      event.stopPropagation();
    });
    return a;
  }

  // Only a relative path or an http(s) address becomes a link; anything else stays text. It
  // is decided on the text the browser's URL parser reads (leading and trailing C0 controls
  // and spaces stripped, tabs and line breaks dropped), so "java<TAB>script:" is the scheme
  // it is; kvcat percent-encodes its own links, so one holding a control or a backslash, or
  // starting with '/' (the disk's root, or '//' another host), is not kvcat's.
  function safeHref(href) {
    if (typeof href !== 'string' || /[\u0000-\u001f\u007f\\]/.test(href)) return null;
    const url = href.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
    if (url === '') return null;
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
    if (scheme) return /^https?$/i.test(scheme[1]) ? url : null;
    return url.startsWith('/') ? null : url;
  }

  function header() {
    const s = content.summary;
    const top = el('header');
    top.append(el('h1', {}, content.title));
    const count = (n, one, many) => n + ' ' + (n === 1 ? one : many);
    const what = count(s.rows, 'row', 'rows') + ', ' + count(s.models, 'model', 'models') + ', ' +
      count(s.accelerators, 'accelerator', 'accelerators') + '; ' + (s.dtypes.length === 1 ? 'cache dtype ' : 'cache dtypes ') +
      s.dtypes.join(', ') + (s.filtered ? ' (filtered)' : '') + '. Written by ' + content.generated_by + '.';
    top.append(el('p', { class: 'summary' }, what));
    const nav = el('nav');
    if (content.planner) nav.append(el('a', { href: '#planner' }, 'Will it fit?'));
    for (const chart of content.charts) nav.append(el('a', { href: '#' + chart.id }, chart.title));
    nav.append(el('a', { href: '#rows' }, 'The rows'));
    top.append(nav);
    main.append(top);
  }

  function drawChart(chart) {
    const section = el('section', { id: chart.id, class: 'chart' });
    section.append(el('h2', {}, chart.title));
    section.append(el('p', {}, chart.description));
    const target = el('div', { class: 'plot' });
    section.append(target);
    if (chart.legend) section.append(el('ul', { class: 'legend', 'aria-label': 'Lines of the chosen model' }));
    const downloads = el('p', { class: 'downloads' }, 'Data: ');
    for (const [name, rows] of Object.entries(chart.datasets)) downloads.append(downloadLink(chart.id + '-' + name, rows));
    section.append(downloads);
    main.append(section);
    // Each dataset is written once in the page, under the chart; the spec draws from the same rows.
    let spec = Object.assign({}, chart.spec, { datasets: Object.assign({}, chart.datasets, chart.spec.datasets || {}) });
    if (chart.panel_width) {
      // Small multiples: as many panels a row as the page is wide, one on a phone.
      spec = Object.assign({}, spec, { columns: Math.max(1, Math.floor(target.clientWidth / chart.panel_width)) });
    }
    return vegaEmbed(target, spec, {
      mode: 'vega-lite',
      renderer: 'svg',
      actions: { export: true, source: false, compiled: false, editor: false },
      tooltip: true,
      // A chart that follows the planner may have nothing to draw for the choice (a model with no
      // measured speed): Vega warns about each empty layer, which is no fault; errors still show.
      logLevel: vega.Error,
      // Every series keeps its legend entry: Vega would otherwise drop entries past 50
      // and warn, and a reader could not name a line.
      config: { legend: { symbolLimit: 0 } },
    });
  }

  function compare(a, b) {
    if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;  // empty cells last
    if (b === null || b === undefined) return -1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    return String(a).localeCompare(String(b));
  }

  function rowsTable(table) {
    const section = el('section', { id: 'rows' });
    section.append(el('h2', {}, 'The rows'));
    const filter = el('input', { type: 'search', id: 'row-filter', placeholder: 'Filter rows: every word must appear',
      'aria-label': 'Filter rows' });
    const count = el('span', { id: 'row-count' });
    const bar = el('p', { class: 'filter' });
    bar.append(filter, count);
    section.append(bar);
    const wrap = el('div', { class: 'table-wrap' });
    const t = el('table', { id: 'rows-table' });
    const head = el('tr');
    const body = el('tbody');
    const linkAt = table.columns.indexOf(table.link_column);
    // A column that says again what another one does (record_id, the start of every id) stays in
    // the data, the filter and the CSV, but takes no room on the page.
    const hidden = new Set((table.hidden_columns || []).map((name) => table.columns.indexOf(name)));
    const items = table.rows.map((cells, i) => ({ cells, link: safeHref(table.links[i]) }));
    const makeRow = (item) => {
      const tr = el('tr');
      item.cells.forEach((value, c) => {
        if (hidden.has(c)) return;
        const td = el('td', typeof value === 'number' ? { class: 'num' } : {});
        if (c === linkAt && item.link) td.append(el('a', { href: item.link }, value));
        else td.textContent = value === null ? '' : String(value);
        tr.append(td);
      });
      item.tr = tr;
      item.text = item.cells.map((v) => (v === null ? '' : String(v))).join(' ').toLowerCase();
      return tr;
    };
    // Rows are made a few hundred at a time, so a catalog of ten thousand does not hold up the
    // planner and the charts; a sort or a filter first makes whatever is left.
    // The rows past the first slice wait in a detached fragment (no layout while they are made)
    // and join the table at once.
    let built = 0;
    const CHUNK = 400;
    const waiting = document.createDocumentFragment();
    const buildSome = (n, into) => {
      const end = Math.min(items.length, built + n);
      for (; built < end; built++) into.append(makeRow(items[built]));
    };
    const finish = () => {
      if (built < items.length) buildSome(items.length - built, waiting);
      if (waiting.childNodes.length) body.append(waiting);
    };
    let sortColumn = -1;
    let descending = false;
    table.columns.forEach((name, c) => {
      if (hidden.has(c)) return;
      const th = el('th', { title: 'Sort by ' + name }, name);
      th.addEventListener('click', () => {
        descending = sortColumn === c ? !descending : false;
        sortColumn = c;
        for (const other of head.children) other.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
        finish();
        const sorted = items.slice().sort((x, y) => compare(x.cells[c], y.cells[c]) * (descending ? -1 : 1));
        body.replaceChildren(...sorted.map((item) => item.tr));
      });
      head.append(th);
    });
    const apply = () => {
      finish();
      const words = filter.value.toLowerCase().split(/\s+/).filter((w) => w !== '');
      let shown = 0;
      for (const item of items) {
        const keep = words.every((w) => item.text.includes(w));
        item.tr.hidden = !keep;
        if (keep) shown += 1;
      }
      count.textContent = shown + ' of ' + items.length + ' rows';
    };
    filter.addEventListener('input', apply);
    t.append(el('thead'), body);
    t.tHead.append(head);
    wrap.append(t);
    section.append(wrap);
    main.append(section);
    buildSome(CHUNK, body);
    count.textContent = items.length + ' of ' + items.length + ' rows';
    return new Promise((resolve) => {
      const more = () => {
        if (built >= items.length) { finish(); resolve(); return; }
        buildSome(CHUNK * 5, waiting);
        setTimeout(more, 0);
      };
      setTimeout(more, 0);
    });
  }

  function notes() {
    if (content.notes.length === 0) return;
    const section = el('section', { id: 'notes' });
    section.append(el('h2', {}, 'Not drawn'));
    const list = el('ul');
    for (const note of content.notes) list.append(el('li', {}, note));
    section.append(list);
    main.append(section);
  }

  header();
  const planner = content.planner && window.kvcatPlanner
    ? window.kvcatPlanner.mount(content.planner, content.table, main, { el, safeHref }) : null;
  const timing = { planner: performance.now(), charts: null, drawn: null };
  const drawn = content.charts.map(drawChart);
  notes();
  const rowsMade = rowsTable(content.table);
  window.kvcatReport = { content, csv, planner, timing };
  // Charts that follow the planner: each names the signals it reads (chosen_model, ...), and
  // every change of the choice sets them, so the chosen model stands out and the rest fade.
  // The HTML legend of a chart whose lines are told apart by colour: the chosen model's lines,
  // each name written out whole (it wraps on a narrow screen rather than being cut).
  function drawLegend(chart, values) {
    const list = document.querySelector('#' + chart.id + ' ul.legend');
    if (!list) return;
    const how = chart.legend;
    const seen = new Map();
    for (const row of chart.datasets[how.dataset]) {
      if (Object.entries(how.where).some(([field, signal]) => row[field] !== values[signal])) continue;
      if (!seen.has(row[how.label])) seen.set(row[how.label], row[how.colour]);
    }
    list.replaceChildren();
    if (seen.size === 0) list.append(el('li', { class: 'none' }, 'No measured point of the chosen model: every line is another model\'s.'));
    for (const [label, colour] of seen) {
      const li = el('li');
      const swatch = el('span', { class: 'line-swatch' });
      swatch.style.background = colour;
      li.append(swatch, label);
      list.append(li);
    }
  }

  // The chosen card's room for the cache once the weights and the reserve are in (one card only:
  // the chart's curves are a whole sequence's cache, not one card's share).
  function roomRows(choice, r) {
    if (!r || r.error || choice.gpus !== 1) return [];
    const { Q, div } = window.kvcatPlanner;
    const left = r.room;  // memory - weights - reserve - engine overhead
    if (left.n <= 0n) return [];
    const gibs = div(left, Q(1n << 30n));
    return [{ total_gib: Number((gibs.n * 1000000n) / gibs.d) / 1000000,
      label: 'left for the cache: ' + window.kvcatPlanner.twoDecimals(gibs) + ' GiB' }];
  }

  function follow(results) {
    if (!planner) return Promise.resolve();
    let pending = Promise.resolve();
    planner.onChange((choice, r) => {
      const values = { chosen_model: choice.model, chosen_accelerator: choice.accelerator, chosen_kv: choice.kv };
      pending = Promise.all(results.map((result, i) => {
        const chart = content.charts[i];
        const names = chart.follows || [];
        if (chart.legend) drawLegend(chart, values);
        if (names.length === 0) return null;
        for (const name of names) result.view.signal(name, values[name]);
        if (chart.room) result.view.data('room', roomRows(choice, r));
        return result.view.runAsync();
      }));
    });
    window.kvcatReport.settled = () => pending;  // the charts have caught up with the choice
    return pending;
  }
  // drawn: the charts are drawn and follow the planner; rows: every row of the table is made.
  Promise.all(drawn).then(follow).then(() => { timing.charts = performance.now(); }).then(() => rowsMade).then(
    () => { timing.drawn = performance.now(); document.body.dataset.state = 'drawn'; },
    (error) => { document.body.dataset.state = 'failed'; console.error('kvcat report: a chart failed', error); });
})();

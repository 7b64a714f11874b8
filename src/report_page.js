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

  // RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
  function csv(rows) {
    if (rows.length === 0) return '';
    const columns = Object.keys(rows[0]);
    const field = (v) => {
      const s = v === null || v === undefined ? '' : String(v);
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

  // Only a relative path or an http(s) address becomes a link; anything else stays text.
  function safeHref(href) {
    if (typeof href !== 'string' || href === '') return null;
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(href);
    return !scheme || /^https?$/i.test(scheme[1]) ? href : null;
  }

  function header() {
    const s = content.summary;
    const top = el('header');
    top.append(el('h1', {}, content.title));
    const what = s.rows + ' rows, ' + s.models + ' models, ' + s.accelerators + ' accelerators; cache dtypes ' +
      s.dtypes.join(', ') + (s.filtered ? ' (filtered)' : '') + '. Written by ' + content.generated_by + '.';
    top.append(el('p', { class: 'summary' }, what));
    const nav = el('nav');
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
    const downloads = el('p', { class: 'downloads' }, 'Data: ');
    for (const [name, rows] of Object.entries(chart.datasets)) downloads.append(downloadLink(chart.id + '-' + name, rows));
    section.append(downloads);
    main.append(section);
    return vegaEmbed(target, chart.spec, {
      mode: 'vega-lite',
      renderer: 'svg',
      actions: { export: true, source: false, compiled: false, editor: false },
      tooltip: true,
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
    const items = table.rows.map((cells, i) => ({ cells, link: safeHref(table.links[i]) }));
    const trs = items.map((item) => {
      const tr = el('tr');
      item.cells.forEach((value, c) => {
        const td = el('td', typeof value === 'number' ? { class: 'num' } : {});
        if (c === linkAt && item.link) td.append(el('a', { href: item.link }, value));
        else td.textContent = value === null ? '' : String(value);
        tr.append(td);
      });
      item.tr = tr;
      item.text = item.cells.map((v) => (v === null ? '' : String(v))).join(' ').toLowerCase();
      return tr;
    });
    let sortColumn = -1;
    let descending = false;
    table.columns.forEach((name, c) => {
      const th = el('th', { title: 'Sort by ' + name }, name);
      th.addEventListener('click', () => {
        descending = sortColumn === c ? !descending : false;
        sortColumn = c;
        for (const other of head.children) other.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
        const sorted = items.slice().sort((x, y) => compare(x.cells[c], y.cells[c]) * (descending ? -1 : 1));
        body.replaceChildren(...sorted.map((item) => item.tr));
      });
      head.append(th);
    });
    const apply = () => {
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
    body.append(...trs);
    wrap.append(t);
    section.append(wrap);
    main.append(section);
    apply();
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
  const drawn = content.charts.map(drawChart);
  notes();
  rowsTable(content.table);
  window.kvcatReport = { content, csv };
  Promise.all(drawn).then(
    () => { document.body.dataset.state = 'drawn'; },
    (error) => { document.body.dataset.state = 'failed'; console.error('kvcat report: a chart failed', error); });
})();

'use strict';
/** Number formats and the table every section prints (text for the console, Markdown for latest.md). */

const fmt = {
  rps: (value) => (value === undefined ? '-' : value.toFixed(value < 100 ? 1 : 0)),
  ratio: (value) => (value === undefined ? '-' : value.toFixed(2)),
  spread: (s) => (s.ratioMin === undefined ? '-' : `${s.ratioMin.toFixed(2)}–${s.ratioMax.toFixed(2)}`),
  lat: (s) => (s.p50 === undefined ? '-' : `${fmtMs(s.p50)} / ${fmtMs(s.p99)}`),
  mb: (kb) => (kb ? `${(kb / 1024).toFixed(0)} MB` : '-'),
  ms: (value) => (value === undefined ? '-' : value.toFixed(1)),
  roundRps: (r) => (r && !r.failed ? r.rps.toFixed(r.rps < 100 ? 1 : 0) : '-'),
  /** Commands per request: whole when exact, else two decimals. */
  count: (value) => (value === undefined ? '-' : Number.isInteger(value) ? String(value) : value.toFixed(2)),
  /** A side's count: in the request, and what else started during the probe (after the answers, timers). */
  commands: (c) =>
    !c
      ? '-'
      : c.failed
        ? 'failed'
        : `${fmt.count(c.perRequest)}${c.meanPerRequest !== undefined && Math.abs(c.meanPerRequest - c.perRequest) > 1e-9 ? ` (mean ${fmt.count(c.meanPerRequest)})` : ''}` +
          `${c.outsidePerRequest > 0 ? ` +${fmt.count(c.outsidePerRequest)} outside` : ''}`,
  cpuSpread: (s) => (s.cpuRatioMin === undefined ? '-' : `${s.cpuRatioMin.toFixed(2)}–${s.cpuRatioMax.toFixed(2)}`),
  micros: (value) => (value === undefined ? '-' : String(Math.round(value))),
  roundLat: (r, seconds) =>
    r?.noneCompleted && !r.failed ? `none in ${seconds} s` : r && !r.failed ? `${fmtMs(r.p50)} / ${fmtMs(r.p99)}` : '-',
};
function fmtMs(value) {
  return value < 10 ? String(Math.round(value * 10) / 10) : String(Math.round(value));
}

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((cell, i) => String(cell).padEnd(widths[i])).join('  ');
  const text = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
  const markdown = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
  return { text, markdown };
}

module.exports = { fmt, fmtMs, table };

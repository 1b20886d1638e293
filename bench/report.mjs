// The run's report: a Markdown table on stdout, bench/results/latest.json and a hand-written
// SVG chart bench/results/latest.svg (one horizontal bar per scenario ratio, its target
// marked; then resident memory per process).
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const fmt = (n) => (n === undefined ? '' : Number.isInteger(n) ? String(n) : String(+n.toFixed(2)));

function figure(unit, m) {
  if (!m) return '';
  if (unit === 'ms p95')
    return `${fmt(m.p50)} ms${m.p95 !== undefined ? ` (p95 ${fmt(m.p95)}, p99 ${fmt(m.p99)})` : ''}`;
  return `${fmt(m.rps)} ${unit}${m.p50 !== undefined ? ` (p50/p99 ${fmt(m.p50)}/${fmt(m.p99)} ms)` : ''}`;
}

export function printReport(run) {
  const lines = [];
  lines.push(
    `\nbenchmarks (${run.quick ? 'quick' : 'default'}: ${run.durationSeconds} s per throughput measurement, ${run.connections} connections; ${run.wallSeconds} s in all)\n`,
  );
  lines.push('| # | scenario | platform | baseline | ratio | target | note |');
  lines.push('|---|---|---|---|---|---|---|');
  for (const r of run.results) {
    if (r.status !== 'ok') {
      lines.push(
        `| ${r.id} | ${r.scenario} | **${r.status}** | | | | ${r.status === 'crashed' ? r.error.split('\n')[0] : r.reason} |`,
      );
      continue;
    }
    lines.push(
      `| ${r.id} | ${r.scenario} | ${figure(r.unit, r.platform)} | ${figure(r.unit, r.baseline)} | ${r.ratio}x | ${r.target}x | ${r.note ?? ''} |`,
    );
  }
  const searches = run.results.filter((r) => r.status === 'ok' && r.search);
  if (searches.length > 0) {
    const f = (m) => `${fmt(m.p50)} / ${fmt(m.p95)} / ${fmt(m.p99)}`;
    lines.push(
      '\n| search (ms, sequential) | fragments (chunks) | queries | GET /api/search p50 / p95 / p99 | raw ' +
        'full-text SQL p50 / p95 / p99 | raw vector SQL p50 / p95 / p99 | full-text hits min / p50 / max |',
    );
    lines.push('|---|---|---|---|---|---|---|');
    for (const { search: s } of searches) {
      lines.push(
        `| hybrid, ${s.shape ?? 'keywords'}, ${s.vectorIndex} vectors | ${s.fragments} (${s.chunks}) | ${s.queries} | ${f(s.api)} | ${f(s.rawFullText)} | ${f(s.rawVector)} | ${s.keywordHits.min} / ${s.keywordHits.p50} / ${s.keywordHits.max} |`,
      );
    }
  }
  if (run.memory.length > 0) {
    lines.push('\n| resident memory after the run | RSS MB |');
    lines.push('|---|---|');
    for (const m of run.memory) lines.push(`| ${m.process} | ${m.rssMb} |`);
  }
  console.log(lines.join('\n'));
}

export function writeReport(root, run) {
  const dir = path.join(root, 'bench/results');
  writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(path.join(dir, 'latest.svg'), svg(run));
}

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const short = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The chart: ratios (higher is better; 1x = the baseline) and RSS, in plain SVG. */
export function svg(run) {
  const W = 960;
  const labelW = 430;
  const barX = labelW + 10;
  const barW = W - barX - 90;
  const rowH = 26;
  const rows = run.results;
  const maxRatio = Math.max(1.1, ...rows.filter((r) => r.status === 'ok').flatMap((r) => [r.ratio, r.target])) * 1.05;
  const x = (ratio) => barX + (Math.min(ratio, maxRatio) / maxRatio) * barW;
  const out = [];
  let y = 76;
  out.push(`<text x="16" y="26" font-size="17" font-weight="bold">Benchmarks: platform / same-run baseline</text>`);
  out.push(
    `<text x="16" y="44" font-size="12" fill="#555">${esc(`${run.at} · ${run.quick ? 'quick' : 'default'} run · ${run.machine}`)}</text>`,
  );
  out.push(
    `<text x="16" y="60" font-size="12" fill="#555">Bar: platform / baseline (higher is better; 1x = as fast as the baseline); red mark: the target; orange: below it.</text>`,
  );
  // Grid: 0.25x steps up to the scale's end, the 1x line darker.
  const step = maxRatio > 3 ? 1 : maxRatio > 1.5 ? 0.5 : 0.25;
  const gridTop = y - 4;
  const gridBottom = y + rows.length * rowH;
  for (let g = 0; g <= maxRatio + 1e-9; g += step) {
    out.push(
      `<line x1="${x(g).toFixed(1)}" y1="${gridTop}" x2="${x(g).toFixed(1)}" y2="${gridBottom}" stroke="${Math.abs(g - 1) < 1e-9 ? '#888' : '#e3e3e3'}" stroke-width="1"/>`,
    );
    out.push(
      `<text x="${x(g).toFixed(1)}" y="${gridBottom + 14}" font-size="10" text-anchor="middle" fill="#777">${fmt(g)}x</text>`,
    );
  }
  for (const r of rows) {
    out.push(
      `<text x="16" y="${y + 15}" font-size="12"><title>${esc(r.scenario)}</title>${esc(`${r.id}. ${short(r.scenario, 62)}`)}</text>`,
    );
    if (r.status === 'ok') {
      const w = Math.max(1, x(r.ratio) - barX);
      const color = r.ratio >= r.target ? '#3b7dd8' : '#e0a030';
      out.push(
        `<rect x="${barX}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowH - 10}" fill="${color}"><title>${esc(`${r.ratio}x (target ${r.target}x)`)}</title></rect>`,
      );
      out.push(
        `<line x1="${x(r.target).toFixed(1)}" y1="${y + 1}" x2="${x(r.target).toFixed(1)}" y2="${y + rowH - 3}" stroke="#d22" stroke-width="3"/>`,
      );
      out.push(
        `<text x="${(Math.max(x(r.ratio), x(r.target)) + 6).toFixed(1)}" y="${y + 15}" font-size="12">${fmt(r.ratio)}x${r.ratio > maxRatio ? ' →' : ''}</text>`,
      );
    } else {
      out.push(
        `<text x="${barX}" y="${y + 15}" font-size="12" fill="${r.status === 'crashed' ? '#c00' : '#777'}">${esc(r.status)}</text>`,
      );
    }
    y += rowH;
  }
  y = gridBottom + 44;
  if (run.memory.length > 0) {
    out.push(
      `<text x="16" y="${y}" font-size="15" font-weight="bold">Resident memory after the run (VmRSS, MB)</text>`,
    );
    y += 12;
    const maxMb = Math.max(...run.memory.map((m) => m.rssMb)) * 1.05;
    for (const m of run.memory) {
      out.push(`<text x="16" y="${y + 15}" font-size="12">${esc(short(m.process, 66))}</text>`);
      out.push(
        `<rect x="${barX}" y="${y + 4}" width="${Math.max(1, (m.rssMb / maxMb) * barW).toFixed(1)}" height="${rowH - 10}" fill="#6a9f58"/>`,
      );
      out.push(
        `<text x="${(barX + (m.rssMb / maxMb) * barW + 6).toFixed(1)}" y="${y + 15}" font-size="12">${fmt(m.rssMb)}</text>`,
      );
      y += rowH;
    }
  }
  const H = y + 16;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">\n<rect width="${W}" height="${H}" fill="#fff"/>\n${out.join('\n')}\n</svg>\n`;
}

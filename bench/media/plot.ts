// A small dependency-free SVG: CPU-ms per session-second and p99 jitter against N, ours vs baseline.

export interface PlotRow {
  server: string;
  sessions: number;
  cpu_ms_per_session_second: number;
  jitter_p99_ms: number;
}

const COLORS = { ours: '#1f77b4', baseline: '#d62728' } as const;

function panel(rows: PlotRow[], carrier: PlotRow[], key: 'cpu_ms_per_session_second' | 'jitter_p99_ms', title: string, x0: number): string {
  const w = 380;
  const h = 260;
  const pad = 45;
  const ns = [...new Set([...rows, ...carrier].map((r) => r.sessions))].sort((a, b) => a - b);
  const maxY = Math.max(1e-9, ...[...rows, ...carrier].map((r) => r[key])) * 1.1;
  const sx = (n: number) => x0 + pad + (ns.indexOf(n) / Math.max(1, ns.length - 1)) * (w - 2 * pad);
  const sy = (v: number) => h - pad + 20 - (v / maxY) * (h - 2 * pad);
  let out = `<text x="${x0 + w / 2}" y="18" text-anchor="middle" font-size="13">${title}</text>`;
  out += `<line x1="${x0 + pad}" y1="${h - pad + 20}" x2="${x0 + w - pad}" y2="${h - pad + 20}" stroke="#333"/>`;
  out += `<line x1="${x0 + pad}" y1="${pad - 5}" x2="${x0 + pad}" y2="${h - pad + 20}" stroke="#333"/>`;
  for (const n of ns) out += `<text x="${sx(n)}" y="${h - pad + 36}" text-anchor="middle" font-size="11">${n}</text>`;
  for (let i = 0; i <= 4; i++) {
    const v = (maxY / 4) * i;
    out += `<text x="${x0 + pad - 6}" y="${sy(v) + 4}" text-anchor="end" font-size="10">${v.toFixed(v < 10 ? 2 : 0)}</text>`;
  }
  for (const [set, dash] of [[rows, ''], [carrier, ' stroke-dasharray="5,3"']] as const)
  for (const server of ['ours', 'baseline'] as const) {
    const pts = set.filter((r) => r.server === server).sort((a, b) => a.sessions - b.sessions);
    out += `<polyline fill="none" stroke="${COLORS[server]}" stroke-width="2"${dash} points="${pts.map((p) => `${sx(p.sessions)},${sy(p[key])}`).join(' ')}"/>`;
    for (const p of pts) out += `<circle cx="${sx(p.sessions)}" cy="${sy(p[key])}" r="3" fill="${COLORS[server]}"/>`;
  }
  out += `<text x="${x0 + w / 2}" y="${h + 30}" text-anchor="middle" font-size="11">concurrent sessions (N)</text>`;
  return out;
}

/** Web rows as solid lines, carrier rows (if any) dashed. */
export function plotSvg(rows: PlotRow[], carrier: PlotRow[] = []): string {
  const legend =
    `<rect x="300" y="300" width="12" height="12" fill="${COLORS.ours}"/><text x="316" y="310" font-size="11">ours (uWS + native)</text>` +
    `<rect x="440" y="300" width="12" height="12" fill="${COLORS.baseline}"/><text x="456" y="310" font-size="11">baseline (ws + speex + fvad)</text>` +
    (carrier.length ? `<line x1="630" y1="306" x2="650" y2="306" stroke="#333" stroke-width="2" stroke-dasharray="5,3"/><text x="654" y="310" font-size="11">carrier (μ-law JSON)</text>` : '');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="780" height="320" font-family="sans-serif">` +
    panel(rows, carrier, 'cpu_ms_per_session_second', 'server CPU-ms per session-second', 0) +
    panel(rows, carrier, 'jitter_p99_ms', 'output jitter p99 (ms)', 390) +
    legend +
    `</svg>\n`
  );
}

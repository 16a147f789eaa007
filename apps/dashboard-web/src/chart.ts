/** The month's renders per day as an inline SVG bar chart (a picture, with a text summary for screen readers). */

const SVG = 'http://www.w3.org/2000/svg';

function el(name: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A rounded-up axis maximum whose half is a whole number too: 2, 4, 10, 20, 40, 100 … */
export function niceMax(value: number): number {
  if (value <= 2) return 2;
  const exp = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 4, 10]) if (step * exp >= value && (step * exp) % 2 === 0) return step * exp;
  return 10 * exp;
}

/** Drawn at the width it is shown at, so its labels keep their size on a phone. */
export function usageChart(days: { day: string; used: number }[], shownWidth: number): SVGElement {
  const width = Math.max(280, Math.round(shownWidth));
  const height = width < 500 ? 180 : 220;
  const pad = { left: 36, right: 8, top: 12, bottom: 28 };
  const max = niceMax(Math.max(0, ...days.map((d) => d.used)));
  const total = days.reduce((s, d) => s + d.used, 0);
  const slots = Math.max(days.length, 7);
  const slot = (width - pad.left - pad.right) / slots;
  const plotH = height - pad.top - pad.bottom;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-labelledby': 'chart-title chart-desc' });
  svg.append(el('desc', { id: 'chart-desc' }, `${total} renders over ${days.length} days; the busiest day had ${Math.max(0, ...days.map((d) => d.used))}.`));
  for (const tick of [0, max / 2, max]) {
    const y = pad.top + plotH - (tick / max) * plotH;
    svg.append(el('line', { x1: pad.left, x2: width - pad.right, y1: y, y2: y, class: 'axis' }));
    svg.append(el('text', { x: pad.left - 6, y: y + 4, 'text-anchor': 'end' }, String(Math.round(tick))));
  }
  days.forEach((d, i) => {
    const barH = (d.used / max) * plotH;
    const x = pad.left + i * slot + slot * 0.15;
    const bar = el('rect', {
      x,
      y: pad.top + plotH - barH,
      width: Math.max(1, slot * 0.7),
      height: Math.max(d.used > 0 ? 2 : 0, barH),
      rx: 2,
      class: 'bar',
      'data-day': d.day,
      'data-used': d.used,
    });
    bar.append(el('title', {}, `${d.day}: ${d.used} render${d.used === 1 ? '' : 's'}`));
    svg.append(bar);
    const dayOfMonth = Number(d.day.slice(8));
    const every = slot < 14 ? 10 : 5;
    if (dayOfMonth === 1 || dayOfMonth % every === 0 || i === days.length - 1) {
      svg.append(el('text', { x: x + slot * 0.35, y: height - 10, 'text-anchor': 'middle' }, String(dayOfMonth)));
    }
  });
  return svg;
}

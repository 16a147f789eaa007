import { api } from './api.js';
import { usageChart } from './chart.js';
import { $, formatNumber, text } from './dom.js';

interface Overview {
  plan: string;
  billing_status: string;
  usage: { quota: number; used: number; remaining: number };
  rate_limit: { limit: number; remaining: number; reset: number };
  renders: { limit: number; in_flight: number };
  daily: { month: string; days: { day: string; used: number }[] };
}

export async function showOverview(): Promise<void> {
  const o = await api<Overview>('GET', '/overview');
  text('ov-plan', o.plan);
  text('ov-billing', o.billing_status === 'unpaid' ? 'An invoice is unpaid: API requests are refused until it is paid.' : 'Paid up');
  text('ov-used', formatNumber(o.usage.used));
  text('ov-quota', formatNumber(o.usage.quota));
  text('ov-remaining', formatNumber(o.usage.remaining));
  const percent = o.usage.quota > 0 ? Math.min(100, Math.round((o.usage.used / o.usage.quota) * 100)) : 0;
  $('ov-meter').setAttribute('aria-valuenow', String(percent));
  $('ov-meter').setAttribute('aria-valuetext', `${percent}% of the monthly quota used`);
  $('ov-meter-bar').style.width = `${percent}%`;
  text('ov-rate', formatNumber(o.rate_limit.limit));
  text('ov-rate-remaining', formatNumber(o.rate_limit.remaining));
  text('ov-inflight', formatNumber(o.renders.in_flight));
  text('ov-inflight-limit', formatNumber(o.renders.limit));
  const month = new Date(`${o.daily.month}-01T00:00:00Z`).toLocaleString(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  text('chart-month', `${month} (UTC)`);
  drawn = o.daily.days;
  draw();
}

let drawn: { day: string; used: number }[] | undefined;
let drawnWidth = 0;
function draw(): void {
  const box = $('ov-chart');
  if (!drawn || box.clientWidth === 0) return;
  drawnWidth = box.clientWidth;
  box.replaceChildren(usageChart(drawn, drawnWidth));
}
// Redrawn when its width changes (a phone turned, a window resized).
new ResizeObserver(() => {
  if ($('ov-chart').clientWidth !== drawnWidth) draw();
}).observe($('ov-chart'));

import { api } from './api.js';
import { $, formatTime, h } from './dom.js';

/** A render as GET /v1/renders/{id} shows it. */
type RenderView = { id: string; status: string; created: number; finished: number | null; file: string | null; expires: number | null } & {
  error: { code: string; message: string } | null;
  webhook?: { status: string; attempts: number; last_attempt: number | null; next_attempt: number | null };
};

function webhookCell(r: RenderView): Node | string {
  if (!r.webhook) return 'none';
  const w = r.webhook;
  const attempts = `${w.attempts} attempt${w.attempts === 1 ? '' : 's'}`;
  const next = w.status === 'pending' && w.next_attempt ? `, next ${formatTime(w.next_attempt)}` : '';
  return h('span', {}, h('span', { class: `status ${w.status}` }, w.status), ` ${attempts}${next}`);
}

export async function showRenders(): Promise<void> {
  const { renders } = await api<{ renders: RenderView[] }>('GET', '/renders');
  document.querySelector('#renders-table tbody')!.replaceChildren(
    ...renders.map((r) =>
      h(
        'tr',
        { 'data-render-id': r.id },
        h('td', { 'data-label': 'Render', class: 'id', title: r.id }, r.id.slice(0, 8)),
        h('td', { 'data-label': 'Status' }, h('span', { class: `status ${r.status}` }, r.status), r.error ? ` ${r.error.message}` : ''),
        h('td', { 'data-label': 'Created' }, formatTime(r.created)),
        h('td', { 'data-label': 'Finished' }, formatTime(r.finished)),
        h(
          'td',
          { 'data-label': 'Result' },
          r.file ? h('a', { href: r.file, target: '_blank', rel: 'noopener', title: `Until ${formatTime(r.expires)}` }, 'Open') : r.status === 'succeeded' ? 'expired' : '–',
        ),
        h('td', { 'data-label': 'Webhook' }, webhookCell(r)),
      ),
    ),
  );
  $('renders-empty').hidden = renders.length > 0;
}

export function bindRenders(): void {
  $('renders-refresh').addEventListener('click', () => void showRenders());
}

import { api, ApiError, type SessionView } from './api.js';
import { $, busy, copy, notice, text } from './dom.js';
import { session, useSession } from './session.js';

const HIDDEN_SECRET = '••••••••••••••••';
let revealed = false;

export function showKeys(): void {
  const s = session();
  text('keys-access', s.access_key);
  $<HTMLInputElement>('keys-signatures').checked = s.account.signature_required;
  if (!revealed) text('keys-secret', HIDDEN_SECRET);
  // New keys are shown once: leaving the page forgets them.
  $('keys-new').hidden = true;
  text('keys-new-access', '');
  text('keys-new-secret', '');
}

function hideSecret(): void {
  revealed = false;
  text('keys-secret', HIDDEN_SECRET);
  text('keys-reveal', 'Reveal');
}

export function bindKeys(onRotated: () => void): void {
  const reveal = $<HTMLButtonElement>('keys-reveal');
  reveal.addEventListener('click', () =>
    busy(reveal, async () => {
      if (revealed) return hideSecret();
      const { secret_key } = await api<{ secret_key: string }>('POST', '/keys/secret');
      text('keys-secret', secret_key);
      text('keys-reveal', 'Hide');
      revealed = true;
    }).catch(report),
  );

  const signatures = $<HTMLInputElement>('keys-signatures');
  signatures.addEventListener('change', async () => {
    $('keys-signatures-error').textContent = '';
    try {
      await api('PUT', '/keys/signatures', { required: signatures.checked });
      session().account.signature_required = signatures.checked;
      notice(signatures.checked ? 'Render requests now need a signature.' : 'Render requests no longer need a signature.');
    } catch (err) {
      signatures.checked = !signatures.checked;
      $('keys-signatures-error').textContent = (err as Error).message;
    }
  });

  const dialog = $<HTMLDialogElement>('rotate-dialog');
  $('keys-rotate').addEventListener('click', () => {
    // A dialog keeps its last answer: a later Escape must not read as "rotate".
    dialog.returnValue = '';
    dialog.showModal();
  });
  dialog.addEventListener('close', async () => {
    if (dialog.returnValue !== 'rotate') return;
    try {
      const res = await api<{ access_key: string; secret_key: string; session: SessionView }>('POST', '/keys/rotate');
      useSession(res.session);
      hideSecret();
      showKeys();
      text('keys-new-access', res.access_key);
      text('keys-new-secret', res.secret_key);
      $('keys-new').hidden = false;
      $('keys-new').focus();
      notice('Your keys were rotated. The old keys no longer work.');
      onRotated();
    } catch (err) {
      report(err);
    }
  });

  document.querySelectorAll<HTMLButtonElement>('[data-copy]').forEach((button) =>
    button.addEventListener('click', async () => {
      const ok = await copy($(button.dataset.copy!).textContent ?? '');
      notice(ok ? 'Copied to the clipboard.' : 'Copying was refused by the browser: select the key and copy it.');
    }),
  );
}

function report(err: unknown): void {
  if (err instanceof ApiError && err.code === 'session_expired') return;
  notice((err as Error).message, 'error');
}

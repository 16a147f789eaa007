import type { ErrorCode } from './codes.js';

/** What each error code means to a caller, and whether the same request may succeed later. */
export const ERROR_DESCRIPTIONS: Record<ErrorCode, { meaning: string; retry: string }> = {
  invalid_parameter: { meaning: 'A parameter (or the body) is invalid; `details` names every bad one.', retry: 'No: fix the request.' },
  bad_request: { meaning: 'The HTTP request itself is malformed (URL encoding, request line, headers).', retry: 'No: fix the request.' },
  target_not_allowed: {
    meaning: 'A URL (`url`, `proxy`, `webhook_url`, or an address the page tried) points to a private, loopback or link-local address.',
    retry: 'No.',
  },
  name_not_resolved: { meaning: "The page's host name does not resolve.", retry: 'When the name resolves.' },
  selector_not_found: {
    meaning: '`click_selector` matches no element of the page, `selector` no visible one (unless `error_on_selector_not_found=false`), or a step\'s `selector` no element within 10 s (`steps[i].selector`); `details` names the parameter.',
    retry: 'When the page has it.',
  },
  access_key_invalid: { meaning: 'No access key, or one that is unknown (rotated keys stop at once).', retry: 'No: use a valid key.' },
  signature_required: { meaning: 'The account requires signed render requests and the request carries no `signature`.', retry: 'No: sign it.' },
  keys_invalid: { meaning: 'Dashboard sign-in: the access key and secret key do not belong to one account.', retry: 'No.' },
  session_expired: { meaning: 'Dashboard: no session, or it ended (12 hours, sign-out, key rotation).', retry: 'After signing in again.' },
  payment_required: { meaning: "The account's invoice is unpaid: API requests are refused until it is paid.", retry: 'Once paid.' },
  plan_upgrade_required: { meaning: 'The feature (tasks, `gpu_rendering`, `ip_location`) needs the Scale plan.', retry: 'After an upgrade.' },
  signature_invalid: { meaning: 'The `signature` does not match the request and the secret key.', retry: 'No: sign it again.' },
  csrf_token_invalid: { meaning: "Dashboard: a change without the session's CSRF token, or from another site.", retry: 'No.' },
  not_found: { meaning: 'No such route.', retry: 'No.' },
  task_not_found: { meaning: 'No such task for this account (another account\'s tasks are not found either).', retry: 'No.' },
  render_not_found: { meaning: 'No such asynchronous render for this account, or it expired.', retry: 'No.' },
  file_not_found: { meaning: 'No such result file, or it expired.', retry: 'No.' },
  secret_not_found: {
    meaning: 'A `type` step names an account secret that does not exist (never created, or deleted: a task that types it fails its runs with this code); `details` names `steps[i].secret`. Also `DELETE /v1/secrets/{name}` of an unknown name.',
    retry: 'After creating the secret (`POST /v1/secrets`).',
  },
  run_not_found: {
    meaning: "`GET /v1/tasks/{id}/compare`: `from` or `to` is not one of the task's kept runs (unknown, not compared, failed, or older than the monitor's last `keep` compared runs); `details` names it.",
    retry: 'No: list the runs (`GET /v1/tasks/{id}/runs`) and pick kept ones.',
  },
  conflict: { meaning: 'The record to create exists already (an account, a task).', retry: 'No.' },
  concurrency_conflict: { meaning: 'Another change to the same record won the race.', retry: 'Yes, at once.' },
  request_timeout: { meaning: 'The request was not received completely in time.', retry: 'Yes.' },
  payload_too_large: { meaning: 'The body exceeds the documented maximum.', retry: 'No.' },
  unsupported_media_type: { meaning: 'A body that is not JSON (`application/json`).', retry: 'No.' },
  quota_exceeded: { meaning: "The month's render quota is used up.", retry: 'Next month, or after an upgrade.' },
  rate_limited: { meaning: "The plan's requests per minute are used up.", retry: 'After `Retry-After` seconds.' },
  concurrency_limited: { meaning: "The plan's renders in flight are all running.", retry: 'After `Retry-After` seconds.' },
  header_too_large: { meaning: 'The request headers are too large.', retry: 'No.' },
  host_returned_error: {
    meaning:
      "The page's main document answered a status listed in `fail_on_status`; `details[0].returned_status_code` is that status. Not charged. (Without `fail_on_status` an error page is rendered like any page; `metadata_status` reports its status.)",
    retry: 'When the page answers.',
  },
  content_contains_specified_string: {
    meaning: "The page's visible text contains a string of `fail_if_content_contains` (case-insensitive); `details[0].matched_string` is that string. Not charged.",
    retry: 'When the page no longer shows it.',
  },
  content_missing_specified_string: {
    meaning: "The page's visible text lacks a string of `fail_if_content_missing` (case-insensitive); `details[0].matched_string` is that string. Not charged.",
    retry: 'When the page shows it.',
  },
  render_failed: { meaning: 'The render failed (the page crashed the browser tab, say); no internals are shown.', retry: 'Perhaps.' },
  render_timeout: {
    meaning: 'The render took longer than `timeout`; when it was waiting for `wait_for_selector` or a step, the message names the selector or `steps[i]` and what it waited for (`details` names the parameter).',
    retry: 'With a longer `timeout`, or later.',
  },
  internal_error: { meaning: 'An unexpected fault; the request id finds it in logs and traces.', retry: 'Yes, later.' },
  renderer_unavailable: {
    meaning: 'No renderer could start a synchronous render within a few seconds (every slot busy, or none running); it is never rendered nor charged.',
    retry: 'After `Retry-After` seconds.',
  },
  service_unavailable: { meaning: 'NATS, auth-quota or the scheduler is unreachable.', retry: 'After `Retry-After` seconds.' },
};

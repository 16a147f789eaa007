import { describe, expect, it } from 'vitest';
import { ResultObjectMeta as ResultObjectMetaMessage, WebhookDelivery } from '@app/proto/render';
import { decodeResultMeta, encodeResultMeta, type ResultObjectMeta } from './result-object.js';
import { decodeWebhookState, encodeWebhookState, type WebhookState } from './render-status-keys.js';

describe('Records two services share through a store', () => {
  describe('When a webhook delivery state is written and read back', () => {
    it('should be the WebhookDelivery message, read back as written', () => {
      const state: WebhookState = { state: 'pending', attempts: 3, lastStatus: 503, lastError: 'http_status', lastAttemptUnixMs: 1_000, nextAttemptUnixMs: 9_000 };
      const bytes = encodeWebhookState(state);
      expect(WebhookDelivery.fromJSON(JSON.parse(new TextDecoder().decode(bytes)))).toEqual({
        state: 'pending',
        attempts: 3,
        last_status: 503,
        last_error: 'http_status',
        last_attempt_unix_ms: 1_000,
        next_attempt_unix_ms: 9_000,
      });
      expect(decodeWebhookState(bytes)).toEqual(state);
    });
  });

  describe('When a stored webhook state is not one', () => {
    it.each([['not json'], ['{"state":"lost","attempts":1}'], ['[]']])('should read %s as no state', (text) => {
      expect(decodeWebhookState(new TextEncoder().encode(text))).toBeUndefined();
    });
  });

  describe('When result metadata is written and read back', () => {
    it('should be the ResultObjectMeta message in one entry, read back as written', () => {
      const meta: ResultObjectMeta = {
        accountId: 'acc',
        expiresUnixMs: 1_800_000_000_000,
        contentType: 'image/png',
        extension: 'png',
        kind: 'file',
        headers: { 'x-service-metadata-title': 'T' },
        attachmentName: 'a.png',
      };
      const entries = encodeResultMeta(meta);
      expect(Object.keys(entries)).toEqual(['result']);
      expect(ResultObjectMetaMessage.fromJSON(JSON.parse(entries.result!))).toMatchObject({ account_id: 'acc', kind: 'file', attachment_name: 'a.png' });
      expect(decodeResultMeta(entries)).toEqual(meta);
    });
  });

  describe('When an object carries no result metadata, or a broken one', () => {
    it.each([[undefined], [{}], [{ result: '{' }], [{ result: '{"accountId":"a"}' }]])('should read %j as none (the object is never served)', (raw) => {
      expect(decodeResultMeta(raw)).toBeUndefined();
    });
  });
});

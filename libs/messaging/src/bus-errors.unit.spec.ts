import { describe, expect, it } from 'vitest';
import { JetStreamApiError, JetStreamError } from '@nats-io/jetstream';
import { errors } from '@nats-io/transport-node';
import { isBusUnavailable, isNotFound, isWrongRevision } from './bus-errors.js';

describe('Whether an error says the bus is unavailable for now', () => {
  describe('When a stream has no leader for a moment (an election on a cluster)', () => {
    it('should be unavailable: the API answered 503 or nobody answered it', () => {
      const temporarily = new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' });
      expect(isBusUnavailable(temporarily)).toBe(true);
      const noLeader = Object.assign(new Error('jetstream is not enabled'), { name: 'JetStreamNotEnabled' });
      expect(isBusUnavailable(noLeader)).toBe(true);
    });
  });

  describe('When the connection is down or a request timed out, directly or as the cause of another error', () => {
    it('should be unavailable', () => {
      expect(isBusUnavailable(new errors.TimeoutError())).toBe(true);
      expect(isBusUnavailable(new errors.ClosedConnectionError())).toBe(true);
      expect(isBusUnavailable(new Error('put failed', { cause: new errors.TimeoutError() }))).toBe(true);
    });
  });

  describe('When the request itself was wrong', () => {
    it('should not be: a bad request, a missing stream, a wrong revision are no outage', () => {
      expect(isBusUnavailable(new JetStreamApiError({ code: 400, err_code: 10071, description: 'wrong last sequence: 4' }))).toBe(false);
      expect(isBusUnavailable(new JetStreamApiError({ code: 404, err_code: 10059, description: 'stream not found' }))).toBe(false);
      expect(isBusUnavailable(new JetStreamError('invalid ack response'))).toBe(false);
      expect(isBusUnavailable(new TypeError('x is undefined'))).toBe(false);
      expect(isBusUnavailable('not an error')).toBe(false);
    });
  });

  describe('When a compare-and-set write lost to another writer', () => {
    it('should be a wrong revision, told apart by its JetStream code, and no other error should be', () => {
      expect(isWrongRevision(new JetStreamApiError({ code: 400, err_code: 10071, description: 'wrong last sequence: 4' }))).toBe(true);
      expect(isWrongRevision(new JetStreamApiError({ code: 400, err_code: 10164, description: 'wrong last sequence: unknown' }))).toBe(true);
      expect(isWrongRevision(new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' }))).toBe(false);
      expect(isWrongRevision(new Error('wrong last sequence: 4'))).toBe(false);
    });
  });

  describe('When the stream or consumer asked about does not exist', () => {
    it('should be not found by its JetStream code, whatever the message says', () => {
      expect(isNotFound(new JetStreamApiError({ code: 404, err_code: 10059, description: 'stream not found' }))).toBe(true);
      expect(isNotFound(new JetStreamApiError({ code: 404, err_code: 10014, description: 'consumer not found' }))).toBe(true);
      expect(isNotFound(new JetStreamApiError({ code: 400, err_code: 10071, description: 'wrong last sequence: 4' }))).toBe(false);
      expect(isNotFound(new Error('stream not found'))).toBe(false);
    });
  });
});

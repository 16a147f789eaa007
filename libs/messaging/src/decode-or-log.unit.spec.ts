import { describe, expect, it, vi } from 'vitest';
import { RenderFinished } from '@app/proto/render';
import { decodeOrLog } from './decode-or-log.js';

describe('decodeOrLog', () => {
  describe('When the body is a message of the codec', () => {
    it('should return it decoded and log nothing', () => {
      const error = vi.fn();
      const data = RenderFinished.encode(RenderFinished.fromPartial({ job_id: 'job_1', status: 'succeeded' })).finish();
      expect(decodeOrLog({ data, subject: 'render.sync.finished.job_1' }, RenderFinished.decode, { error }, 'render outcome')).toMatchObject({
        job_id: 'job_1',
        status: 'succeeded',
      });
      expect(error).not.toHaveBeenCalled();
    });
  });

  describe('When the body cannot be decoded', () => {
    it('should return undefined and log it as dropped, naming its subject', () => {
      const error = vi.fn();
      const data = new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]);
      expect(decodeOrLog({ data, subject: 'render.sync.finished.x' }, RenderFinished.decode, { error }, 'render outcome')).toBeUndefined();
      expect(error).toHaveBeenCalledWith(expect.objectContaining({ subject: 'render.sync.finished.x' }), 'undecodable render outcome: dropped');
    });
  });
});

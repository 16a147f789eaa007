import { describe, expect, it } from 'vitest';
import { validateRenderParams } from './validate.js';

const problemsOf = (steps: unknown) => {
  try {
    validateRenderParams('screenshot', { url: 'https://example.com/', steps });
    return [];
  } catch (err) {
    return (err as { details: { parameter: string; message: string }[] }).details;
  }
};

describe('steps', () => {
  describe('When every step is well formed', () => {
    it('should keep them in order, as given in JSON or as a JSON string (a query)', () => {
      const steps = [
        { action: 'goto', url: 'https://example.com/login' },
        { action: 'type', selector: '#user', text: 'ann' },
        { action: 'type', selector: '#password', secret: 'shop.password', optional: true },
        { action: 'press', key: 'Enter' },
        { action: 'select', selector: 'select', value: 'b' },
        { action: 'wait', ms: 10_000 },
      ];
      expect(validateRenderParams('scrape', { url: 'https://example.com/', steps }).params.steps).toEqual(steps);
      expect(validateRenderParams('scrape', { url: 'https://example.com/', steps: JSON.stringify(steps) }).params.steps).toEqual(steps);
    });
  });

  describe('When a step is wrong', () => {
    it('should name the step and its field', () => {
      expect(problemsOf([{ action: 'click', selector: '#a' }, { action: 'click' }])).toEqual([
        { parameter: 'steps[1].selector', message: 'steps[1].selector is required for a click step' },
      ]);
      expect(problemsOf([{ action: 'fly' }])[0]!.parameter).toBe('steps[0].action');
      expect(problemsOf([{ action: 'wait', ms: 10_001 }])[0]!.parameter).toBe('steps[0].ms');
      expect(problemsOf([{ action: 'goto', url: 'file:///etc/passwd' }])[0]!.parameter).toBe('steps[0].url');
      expect(problemsOf([{ action: 'type', selector: '#a' }])[0]!.parameter).toBe('steps[0].text');
      expect(problemsOf([{ action: 'type', selector: '#a', text: 'x', secret: 'y' }])[0]!.parameter).toBe('steps[0].secret');
      expect(problemsOf([{ action: 'type', selector: '#a', secret: 'no spaces' }])[0]!.parameter).toBe('steps[0].secret');
      expect(problemsOf([{ action: 'press', key: 'Launch' }])[0]!.parameter).toBe('steps[0].key');
      expect(problemsOf([{ action: 'wait', ms: 5, selector: '#a' }])[0]!.parameter).toBe('steps[0].selector');
      expect(problemsOf('not json')[0]!.parameter).toBe('steps');
    });

    it('should refuse 1 MB of text with a bound on its length', () => {
      const [problem] = problemsOf([{ action: 'type', selector: '#a', text: 'x'.repeat(1_000_000) }]);
      expect(problem).toEqual({ parameter: 'steps[0].text', message: 'steps[0].text must be at most 10000 characters' });
    });

    it('should refuse more than 50 steps', () => {
      expect(problemsOf(Array.from({ length: 51 }, () => ({ action: 'wait', ms: 1 })))).toEqual([
        { parameter: 'steps', message: 'steps must be at most 50 steps (51 given)' },
      ]);
    });
  });
});

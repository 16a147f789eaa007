import { describe, expect, it } from 'vitest';
import { SUBJECTS } from './topology.js';

describe('SUBJECTS prefixes', () => {
  it('each prefix a consumer matches on is the prefix of the subjects it names', () => {
    expect(SUBJECTS.renderStarted('job-1').startsWith(SUBJECTS.renderStartedPrefix)).toBe(true);
    expect(SUBJECTS.renderWithoutJob('res-1').startsWith(SUBJECTS.renderWithoutJobPrefix)).toBe(true);
    expect(SUBJECTS.renderFinished('job-1').startsWith(SUBJECTS.renderStartedPrefix)).toBe(false);
  });
});

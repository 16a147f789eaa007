import { describe, expect, it } from 'vitest';
import { compareTexts } from './text-diff.js';

const labels = { before: 'a', after: 'b' };

describe('a text comparison with trigger rules', () => {
  it('should count only added lines with trigger added, and nothing when lines were only removed', () => {
    const added = compareTexts('Pro $29\nTeam $99', 'Pro $29\nTeam $99\nEnterprise $499', labels, { trigger: 'added' });
    expect(added.score).toBe('Enterprise $499\n'.length);
    const removed = compareTexts('Pro $29\nTeam $99', 'Pro $29', labels, { trigger: 'added' });
    expect(removed.score).toBe(0);
    expect(removed.summary).toContain('no line was added');
  });

  it('should count only removed lines with trigger removed', () => {
    expect(compareTexts('Pro $29\nTeam $99', 'Pro $29', labels, { trigger: 'removed' }).score).toBe('Team $99\n'.length);
    expect(compareTexts('Pro $29', 'Pro $29\nTeam $99', labels, { trigger: 'removed' }).score).toBe(0);
  });

  it('should count a change only when a keyword appears or disappears (case-insensitive), and say which', () => {
    const priceOnly = compareTexts('Pro $29\nIn stock', 'Pro $39\nIn stock', labels, { keywords: ['sold out'] });
    expect(priceOnly.score).toBe(0);
    expect(priceOnly.summary).toContain('no keyword appeared or disappeared');
    const soldOut = compareTexts('Pro $29\nIn stock', 'Pro $29\nSOLD OUT', labels, { keywords: ['sold out', 'in stock'] });
    expect(soldOut.score).toBeGreaterThan(0);
    expect(soldOut.summary).toContain('appeared: "sold out"');
    expect(soldOut.summary).toContain('disappeared: "in stock"');
  });

  it('should combine: trigger added with keywords counts only a keyword that appeared', () => {
    expect(compareTexts('Pro $29\nSold out', 'Pro $29', labels, { trigger: 'added', keywords: ['sold out'] }).score).toBe(0);
    expect(compareTexts('Pro $29\nSold out', 'Pro $29\nIn stock', labels, { trigger: 'added', keywords: ['sold out'] }).score).toBe(0);
    expect(compareTexts('Pro $29', 'Pro $29\nSold out', labels, { trigger: 'added', keywords: ['sold out'] }).score).toBeGreaterThan(0);
  });
});

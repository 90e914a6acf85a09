import { describe, expect, it } from 'vitest';
import { countBySeverity, scoreReview } from '../../src/review/findings/score.js';

const findings = (...severities: string[]) => severities.map((severity) => ({ severity }));

describe('dashboard score', () => {
  it('rule 1: uses confidence.overall × 100, or the value itself when above 1', () => {
    expect(scoreReview({ confidence: { overall: 0.87 }, comments: findings('CRITICAL') })).toBe(87);
    expect(scoreReview({ confidence: { overall: 0 }, comments: [] })).toBe(0);
    expect(scoreReview({ confidence: { overall: 1 }, comments: [] })).toBe(100);
    expect(scoreReview({ confidence: { overall: 73 }, comments: [] })).toBe(73);
    expect(scoreReview({ confidence: { overall: 0.123456 }, comments: [] })).toBe(12.35);
  });

  it('rule 2: without confidence.overall, no findings scores 98', () => {
    expect(scoreReview({ comments: [] })).toBe(98);
    expect(scoreReview({ confidence: { overall: null }, comments: [] })).toBe(98);
    expect(scoreReview({ confidence: null, comments: null })).toBe(98);
    expect(scoreReview({ confidence: { overall: 'high' }, comments: [] })).toBe(98);
  });

  it('rule 3: 100 − 15 per critical − 5 per warning − 2 per suggestion, limited to 50..99', () => {
    expect(scoreReview({ comments: findings('CRITICAL', 'MAJOR', 'MINOR', 'INFO') })).toBe(100 - 15 - 5 - 2 - 2);
    expect(scoreReview({ comments: findings('INFO') })).toBe(98);
    expect(scoreReview({ comments: findings('CRITICAL', 'CRITICAL', 'CRITICAL', 'CRITICAL') })).toBe(50);
    expect(scoreReview({ comments: findings('major') })).toBe(95);
  });

  it('counts by severity: CRITICAL critical, MAJOR warning, MINOR and INFO suggestions', () => {
    expect(countBySeverity(findings('CRITICAL', 'MAJOR', 'MAJOR', 'MINOR', 'INFO', 'info'))).toEqual({ critical: 1, warning: 2, suggestion: 3, total: 6 });
    expect(countBySeverity(undefined)).toEqual({ critical: 0, warning: 0, suggestion: 0, total: 0 });
  });
});

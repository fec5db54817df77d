// A trimmed-mean location estimate: drop invalid readings, sort a copy, average the middle.
import { differentiable } from 'tsad';

export const trimmedLoss = differentiable((readings: number[], centre: number, trim: number): number => {
  if (!readings.every((r) => Number.isFinite(r))) throw new Error('readings must be finite');
  const valid = readings.filter((r) => r > -100);
  const sorted = valid.slice().sort((a, b) => a - b);
  const k = Math.floor(trim * sorted.length);
  const kept = sorted.slice(k, sorted.length - k);
  if (kept.length === 0) return 0;
  const mean = kept.reduce((a, b) => a + b, 0) / kept.length;
  return (mean - centre) ** 2;
});

/** Per-query retrieval metrics as BEIR computes them (linear gain, log2 discount). */
export function ndcgAt(ranking: string[], relevant: Map<string, number>, cutoff: number): number {
  let dcg = 0;
  ranking.slice(0, cutoff).forEach((id, index) => {
    dcg += (relevant.get(id) ?? 0) / Math.log2(index + 2);
  });
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, cutoff);
  const idcg = ideal.reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

export function recallAt(ranking: string[], relevant: Map<string, number>, cutoff: number): number {
  if (relevant.size === 0) return 0;
  return ranking.slice(0, cutoff).filter((id) => relevant.has(id)).length / relevant.size;
}

export function mrrAt(ranking: string[], relevant: Map<string, number>, cutoff: number): number {
  const index = ranking.slice(0, cutoff).findIndex((id) => relevant.has(id));
  return index < 0 ? 0 : 1 / (index + 1);
}

export const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);

export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

/**
 * Two-sided paired randomization test: how often randomly swapping each query's pair of scores
 * gives a mean difference at least as large as the observed one. Seeded, so reruns agree.
 */
export function pairedRandomizationTest(a: number[], b: number[], rounds = 20_000): { meanDifference: number; pValue: number } {
  const differences = a.map((value, index) => value - b[index]!);
  const observed = Math.abs(mean(differences));
  let state = 0x2545f491;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
  let extreme = 0;
  for (let round = 0; round < rounds; round++) {
    let sum = 0;
    for (const difference of differences) sum += random() < 0.5 ? difference : -difference;
    if (Math.abs(sum / differences.length) >= observed - 1e-12) extreme++;
  }
  return { meanDifference: mean(differences), pValue: (extreme + 1) / (rounds + 1) };
}

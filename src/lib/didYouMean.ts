// "Did you mean": the known word nearest a typo, for messages about configuration, scenarios and flags.

/**
 * Edit distance for "did you mean": insert, delete, substitute, and swap two neighbours (optimal string
 * alignment), so the commonest typo, two letters typed the wrong way round ("bnad"), costs one edit.
 */
export function levenshtein(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(row[j - 1]! + 1, prev[j]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** The known word closest to `word`, when it is close enough to be a typo (case ignored). */
export function didYouMean(word: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const w = word.toLowerCase();
  for (const candidate of known) {
    const d = levenshtein(w, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const tolerance = Math.max(1, Math.floor(word.length / 3));
  return best !== undefined && bestDistance <= tolerance ? best : undefined;
}

// Deterministic pseudo-random numbers for the simulator. Each concern (a pair's price path, TWAP
// randomisation, each endpoint's faults) draws from its own stream derived from the seed and a label, so
// adding a request or a pair never shifts the numbers another concern sees.

/** 32-bit FNV-1a hash of a string, used to derive stream seeds from labels. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** splitmix32 step, used to expand a seed into generator state. */
function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  z ^= z >>> 16;
  return [next, z >>> 0];
}

/** sfc32: a small, fast generator with a 128-bit state; good statistical quality for simulation. */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | undefined;

  constructor(seed: number | string, label = "") {
    let s = (typeof seed === "number" ? seed >>> 0 : fnv1a(seed)) ^ fnv1a(label);
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [next, out] = splitmix32(s);
      s = next;
      words.push(out);
    }
    [this.a, this.b, this.c, this.d] = words as [number, number, number, number];
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1) with 53 bits of precision. */
  next(): number {
    const hi = this.nextUint32() >>> 5;
    const lo = this.nextUint32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer uniform in [min, max] (inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.next() < p;
  }

  /** Standard normal variate (Box–Muller, caching the second value). */
  normal(): number {
    if (this.spareNormal !== undefined) {
      const v = this.spareNormal;
      this.spareNormal = undefined;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }
}

/** A family of independent streams derived from one seed. */
export class PrngStreams {
  private readonly streams = new Map<string, Prng>();
  constructor(readonly seed: number) {}

  /** The stream for `label`, created on first use and then continued. */
  stream(label: string): Prng {
    let s = this.streams.get(label);
    if (s === undefined) {
      s = new Prng(this.seed, label);
      this.streams.set(label, s);
    }
    return s;
  }

  /** A fresh stream for `label` that does not disturb the shared one. */
  fresh(label: string): Prng {
    return new Prng(this.seed, label);
  }
}

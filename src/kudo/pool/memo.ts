/**
 * Decoded array/map parameter values by type and text, bounded by count and by characters:
 * the same values arrive on every plan pass, and decoding YAML dominates a render's cost.
 * Cleared when full (values are immutable data, shared read-only by renders).
 */
export class DecodeMemo {
  private readonly entries = new Map<string, unknown>();
  private chars = 0;

  constructor(
    private readonly maxEntries: number = 1024,
    private readonly maxChars: number = 8 * 1024 * 1024,
  ) {}

  get(raw: unknown, type: 'array' | 'map', decode: () => unknown): unknown {
    if (typeof raw !== 'string') return decode();
    const key = `${type}\u0000${raw}`;
    if (this.entries.has(key)) return this.entries.get(key);
    const value = decode();
    if (raw.length > this.maxChars / 8) return value; // too big to keep
    if (this.entries.size >= this.maxEntries || this.chars + raw.length > this.maxChars) {
      this.entries.clear();
      this.chars = 0;
    }
    this.entries.set(key, value);
    this.chars += raw.length;
    return value;
  }
}

import type { RenderBatch } from '../render/index.ts';

/** The templates of a batch, for errors: `a.yaml, b.yaml` (the first few, then how many more). */
export function templatesSubject(batch: RenderBatch, shown = 5): string {
  const names = batch.templates.map((t) => t.template);
  const head = names.slice(0, shown).join(', ');
  return names.length > shown ? `${head} and ${names.length - shown} more` : head;
}

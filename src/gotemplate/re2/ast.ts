// The parse tree. Each node carries Go's size estimate (compiled instructions) and tree
// height, so the parser can apply regexp/syntax's limits as nodes are built.

export type Node =
  | { op: 'lit'; runes: number[]; fold: boolean; size: number; height: number }
  | { op: 'class'; ranges: number[]; size: number; height: number }
  | {
      op: 'anyNotNL' | 'any' | 'bol' | 'eol' | 'bot' | 'eot' | 'wb' | 'nwb' | 'empty';
      size: number;
      height: number;
    }
  | { op: 'cap'; index: number; name: string; sub: Node; size: number; height: number }
  | {
      op: 'repeat';
      counted: boolean; // x{n,m}, as opposed to x* x+ x?
      min: number;
      max: number; // -1: unbounded
      greedy: boolean;
      sub: Node;
      size: number;
      height: number;
    }
  | { op: 'concat' | 'alt'; subs: Node[]; size: number; height: number };

export type Simple = 'anyNotNL' | 'any' | 'bol' | 'eol' | 'bot' | 'eot' | 'wb' | 'nwb' | 'empty';

const sizeOf = (n: number): number => Math.max(1, n);

export function lit(runes: number[], fold: boolean): Node {
  return { op: 'lit', runes, fold, size: sizeOf(runes.length), height: 1 };
}

export function cls(ranges: number[]): Node {
  return { op: 'class', ranges, size: 1, height: 1 };
}

export function simple(op: Simple): Node {
  return { op, size: 1, height: 1 };
}

export function cap(index: number, name: string, sub: Node): Node {
  return { op: 'cap', index, name, sub, size: 2 + sub.size, height: 1 + sub.height };
}

/** x* x+ x? and x{n,m}, sized the way Go's compiler would expand them. */
export function repeat(
  sub: Node,
  min: number,
  max: number,
  greedy: boolean,
  counted: boolean,
): Node {
  let size: number;
  if (max === -1) size = min === 0 ? 2 + sub.size : min === 1 ? 1 + sub.size : 1 + min * sub.size;
  else if (min === 0 && max === 1) size = 1 + sub.size;
  else size = max * sub.size + (max - min);
  return {
    op: 'repeat',
    counted,
    min,
    max,
    greedy,
    sub,
    size: sizeOf(size),
    height: 1 + sub.height,
  };
}

export function multi(op: 'concat' | 'alt', subs: Node[]): Node {
  let size = 0;
  let height = 0;
  for (const s of subs) {
    size += s.size;
    height = Math.max(height, s.height);
  }
  if (op === 'alt' && subs.length > 1) size += subs.length - 1;
  return { op, subs, size: sizeOf(size), height: 1 + height };
}

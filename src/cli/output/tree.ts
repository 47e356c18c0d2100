/**
 * Trees drawn the way KUDO's CLI drew them (github.com/xlab/treeprint): a `.` root, box-drawing
 * branches, four columns per level. Written here because the format is small and must match
 * byte for byte; the npm tree printers differ in root and spacing.
 */
export interface TreeNode {
  readonly text: string;
  readonly children?: readonly TreeNode[];
}

/**
 * treeprint v1.0.0 draws a continuing branch as `│`, two no-break spaces and a space (its
 * source has U+00A0 there, and KUDO's output carries it); scripts that cut columns see it.
 */
const LINK = '│\u00a0\u00a0 ';

/** The tree's lines without the root `.` line. */
export function treeLines(nodes: readonly TreeNode[], prefix = ''): string[] {
  const lines: string[] = [];
  nodes.forEach((node, i) => {
    const last = i === nodes.length - 1;
    lines.push(`${prefix}${last ? '└── ' : '├── '}${node.text}`);
    if (node.children && node.children.length > 0) {
      lines.push(...treeLines(node.children, `${prefix}${last ? '    ' : LINK}`));
    }
  });
  return lines;
}

/**
 * treeprint's String(): the root's value (`.` unless set, as KUDO's `package list plans` sets
 * it to `plans`) then the branches, each line ending in a newline.
 */
export function renderTree(nodes: readonly TreeNode[], root = '.'): string {
  return [root, ...treeLines(nodes)].map((l) => `${l}\n`).join('');
}

/** The bits of an mdast tree this plugin touches. */
interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/**
 * A remark plugin that turns raw HTML (`<img onerror=...>`, `<script>`) into literal text, so the person
 * sees exactly what the agent sent and nothing of it runs or loads.
 */
export function htmlAsText() {
  return (tree: MdNode) => {
    const walk = (node: MdNode) => {
      if (node.type === 'html') node.type = 'text';
      node.children?.forEach(walk);
    };
    walk(tree);
  };
}

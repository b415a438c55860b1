import type { Node, Tree } from 'web-tree-sitter';
import type { SyntaxProblem } from './symbols.js';

const PROBLEM_CAP = 50;

/**
 * Lists the grammar's ERROR and MISSING nodes, visiting only subtrees that contain an error, so a
 * clean file costs one check of the root.
 */
export function collectSyntaxProblems(tree: Tree): SyntaxProblem[] {
  const problems: SyntaxProblem[] = [];
  if (!tree.rootNode.hasError) return problems;
  const visit = (node: Node): void => {
    if (problems.length >= PROBLEM_CAP) return;
    if (node.isMissing) {
      problems.push({
        line: node.startPosition.row + 1,
        character: node.startPosition.column + 1,
        message: `Syntax error: missing "${node.type}".`,
      });
      return;
    }
    if (node.type === 'ERROR') {
      const text = node.text.split('\n')[0]!.trim().slice(0, 40);
      problems.push({
        line: node.startPosition.row + 1,
        character: node.startPosition.column + 1,
        message: text === '' ? 'Syntax error.' : `Syntax error near "${text}".`,
      });
      return;
    }
    for (const child of node.children) {
      if (child !== null && (child.hasError || child.isMissing)) visit(child);
    }
  };
  visit(tree.rootNode);
  return problems;
}

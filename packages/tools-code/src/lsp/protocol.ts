/**
 * vscode-languageserver-protocol's request type objects (`HoverRequest.type`…), loaded on first
 * use: importing the package root must not load the protocol library (the catalogue lists tools
 * without starting anything heavy). The import is cached, so later calls cost one resolved
 * promise.
 */
let loading: Promise<typeof import('vscode-languageserver-protocol/node')> | undefined;

export function protocol(): Promise<typeof import('vscode-languageserver-protocol/node')> {
  loading ??= import('vscode-languageserver-protocol/node');
  return loading;
}

import picomatch from 'picomatch';

export interface OwnershipRule {
  pattern: string;
  owners: string[];
}

/** Parses a CODEOWNERS file (comments, blank lines and section headers skipped). */
export function parseCodeowners(text: string): OwnershipRule[] {
  const rules: OwnershipRule[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '' || line.startsWith('[') || line.startsWith('^[')) continue;
    const [pattern, ...owners] = line.split(/\s+/);
    if (pattern !== undefined) rules.push({ pattern, owners });
  }
  return rules;
}

function ruleMatcher(pattern: string): (path: string) => boolean {
  let glob = pattern;
  const anchored = glob.startsWith('/') || glob.slice(0, -1).includes('/');
  glob = glob.replace(/^\//, '');
  if (glob.endsWith('/')) glob = `${glob}**`;
  if (!anchored) glob = `**/${glob}`;
  const matchers = [picomatch(glob, { dot: true }), picomatch(`${glob}/**`, { dot: true })];
  return (path) => matchers.some((matcher) => matcher(path));
}

/** Owners of a path: the last matching rule wins, as GitHub and GitLab define it. */
export function ownersOf(rules: readonly OwnershipRule[], path: string): string[] | undefined {
  let owners: string[] | undefined;
  for (const rule of rules) if (ruleMatcher(rule.pattern)(path)) owners = rule.owners;
  return owners;
}

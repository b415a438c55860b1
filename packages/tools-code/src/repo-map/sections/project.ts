import type { SectionInput } from './section.js';

/** The project section: the project profile: name, languages, manifests, package managers and the commands to run. */
export async function projectSection(input: SectionInput): Promise<void> {
  const { options, files, snapshot, profile, structured, sections } = input;
  if (profile === undefined) return;
  const commands = profile.commands.slice(0, options.maxResults);
  const manifests = shownManifests(profile.manifests, options.maxResults);
  structured.project = {
    ...profile,
    manifests: manifests.shown,
    ...(manifests.left > 0 ? { manifests_total: profile.manifests.length } : {}),
    commands,
  };
  sections.push(
    [
      '## project',
      ...(profile.description === undefined ? [] : [`${profile.name}: ${profile.description}`]),
      `${profile.name}: ${files.length} files${snapshot.truncated ? ' (walk capped)' : ''}; languages: ${profile.languages.map((language) => `${language.name} ${language.files}`).join(', ') || 'none'}`,
      `manifests: ${manifests.text || 'none'}; package managers: ${profile.package_managers.join(', ') || 'none'}`,
      'commands:',
      ...commands.map(
        (command) =>
          `  ${command.command_id}: ${command.argv.join(' ')}${command.cwd === '.' ? '' : ` (in ${command.cwd})`}`,
      ),
    ].join('\n'),
  );
}

/**
 * The manifests to show, the shallowest first (the root's before a package's), at most `count`;
 * the rest are counted by name. A monorepo holds one package.json and tsconfig.json per package,
 * and listing them all took half of babel's map.
 */
function shownManifests(
  manifests: readonly string[],
  count: number,
): { shown: string[]; left: number; text: string } {
  const depth = (file: string) => file.split('/').length;
  const shown = [...manifests]
    .sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, count);
  const left = manifests.length - shown.length;
  if (left === 0) return { shown, left, text: shown.join(', ') };
  const shownSet = new Set(shown);
  const leftByName = new Map<string, number>();
  for (const file of manifests) {
    if (shownSet.has(file)) continue;
    const name = file.slice(file.lastIndexOf('/') + 1);
    leftByName.set(name, (leftByName.get(name) ?? 0) + 1);
  }
  const counts = [...leftByName]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([name, times]) => `${times} ${name}`);
  return { shown, left, text: `${shown.join(', ')} (+${left} more: ${counts.join(', ')})` };
}

import type { SectionInput } from './section.js';

/** The project section: the project profile: name, languages, manifests, package managers and the commands to run. */
export async function projectSection(input: SectionInput): Promise<void> {
  const { options, files, snapshot, profile, structured, sections } = input;
  if (profile === undefined) return;
  const commands = profile.commands.slice(0, options.maxResults);
  structured.project = { ...profile, commands };
  sections.push(
    [
      '## project',
      ...(profile.description === undefined ? [] : [`${profile.name}: ${profile.description}`]),
      `${profile.name}: ${files.length} files${snapshot.truncated ? ' (walk capped)' : ''}; languages: ${profile.languages.map((language) => `${language.name} ${language.files}`).join(', ') || 'none'}`,
      `manifests: ${profile.manifests.join(', ') || 'none'}; package managers: ${profile.package_managers.join(', ') || 'none'}`,
      'commands:',
      ...commands.map(
        (command) =>
          `  ${command.command_id}: ${command.argv.join(' ')}${command.cwd === '.' ? '' : ` (in ${command.cwd})`}`,
      ),
    ].join('\n'),
  );
}

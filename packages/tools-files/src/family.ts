import type { ToolFamily } from '@assistant-kit/tool-core';
import type { FamilyContext } from './family-context.js';
import { keepListingsIn } from './listing/kept-listing.js';
import { type FileToolsOptions, resolveOptions } from './options.js';
import { SearchService } from './search/search-service.js';
import { EncodingMemory } from './text/encoding-memory.js';
import { createEditFileTool } from './tools/edit-file.js';
import { createListFilesTool } from './tools/list-files.js';
import { createReadFileTool } from './tools/read-file.js';
import { createReplaceInFilesTool } from './tools/replace-in-files.js';
import { createSearchFilesTool } from './tools/search-files.js';
import { createViewImageTool } from './tools/view-image.js';
import { createWriteFileTool } from './tools/write-file.js';

/**
 * Creates the files family bound to one workspace session: write_file, edit_file,
 * replace_in_files, view_image, search_files, read_file and list_files, in SPEC 4.4 order.
 * A workspace opened read-only (configuration R) makes every write tool refuse.
 *
 * @example
 * const workspace = await Workspace.open('/srv/project');
 * const files = createFileTools({ workspace });
 * const runtime = new ToolRuntime({ workspace, tools: files.tools });
 * await runtime.call('search_files', { pattern: 'TODO', glob: '*.ts' });
 * await files.close();
 */
export function createFileTools(options: FileToolsOptions): ToolFamily {
  const resolved = resolveOptions(options);
  const family: FamilyContext = {
    options: resolved,
    encodingMemory: new EncodingMemory(),
    search: new SearchService(resolved.rgPath, {
      keeper: keepListingsIn(resolved.workspace),
      keepFromPaths: resolved.keepListingFrom,
    }),
  };
  const tools = [
    createWriteFileTool(family),
    createEditFileTool(family),
    createReplaceInFilesTool(family),
    createViewImageTool(family),
    createSearchFilesTool(family),
    createReadFileTool(family),
    createListFilesTool(family),
  ];
  return {
    tools,
    // Searches end with their call (ripgrep is killed on abort); session memory and the stat
    // workers of list_files are what is held.
    close: async () => {
      family.encodingMemory.clear();
      await family.search.close();
    },
  };
}

// The README's usage snippet, verbatim between the markers: the repository type-check compiles it,
// and readme.test.ts checks that the README still holds exactly this code.
// README-SNIPPET-START
import { createCatalogTools, createTurnModel } from '@assistant-kit/ai-sdk';
import { resolveTurn } from '@assistant-kit/settings-resolver';
import { createToolCatalog } from '@assistant-kit/tool-catalog';
import { stepCountIs, streamText } from 'ai';

export async function runCodingTurn(system: object, account: object, workspaceRoot: string, prompt: string) {
  const turn = resolveTurn({ system, account, request: {} });
  const main = await createTurnModel(turn.connections.main); // model, providerOptions, temperature, maxOutputTokens
  const catalog = await createToolCatalog({
    configuration: 'U',
    workspace: workspaceRoot,
    settings: turn.settings,
  });
  try {
    return await catalog.dispatch(prompt, async () => {
      const result = streamText({
        model: main.model,
        providerOptions: main.providerOptions,
        temperature: main.temperature,
        maxOutputTokens: main.maxOutputTokens,
        tools: await createCatalogTools(catalog, { imagesInResults: main.route.imagesInToolResults }),
        stopWhen: stepCountIs(20),
        prompt,
      });
      for await (const part of result.fullStream) {
        if (part.type === 'tool-call') console.log('→', part.toolName, part.input);
        if (part.type === 'text-delta') process.stdout.write(part.text);
      }
      return result.text;
    });
  } finally {
    await catalog.close();
  }
}
// README-SNIPPET-END

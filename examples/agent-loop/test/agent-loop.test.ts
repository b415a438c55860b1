import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolCatalog, type ToolCatalog } from '@assistant-kit/tool-catalog';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatMessage, runAgentLoop } from '../src/agent-loop.js';
import { ScriptedProvider } from './scripted-provider.js';

const BROKEN = 'export function add(a, b) {\n  return a - b;\n}\n';
const FIXED = 'export function add(a, b) {\n  return a + b;\n}\n';

let root: string;
let catalog: ToolCatalog;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'agent-loop-'));
  await mkdir(path.join(root, 'src'));
  await mkdir(path.join(root, 'test'));
  await writeFile(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'calculator', type: 'module', scripts: { test: 'node --test test/' } }),
  );
  await writeFile(path.join(root, 'src', 'math.js'), BROKEN);
  await writeFile(
    path.join(root, 'test', 'math.test.js'),
    "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../src/math.js';\n\ntest('add adds', () => {\n  assert.equal(add(2, 3), 5);\n});\n",
  );
  await writeFile(
    path.join(root, 'index.html'),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the page's own script uses a template literal.
    '<!doctype html><html><head><title>Calculator</title></head><body><h1>Calculator</h1><script type="module">import { add } from \'./src/math.js\'; document.body.insertAdjacentHTML(\'beforeend\', `<p id="sum">2 + 3 = ${add(2, 3)}</p>`);</script></body></html>\n',
  );
  catalog = await createToolCatalog({ configuration: 'U', workspace: root, permissionMode: 'auto' });
});

afterAll(async () => {
  await catalog?.close();
  await rm(root, { recursive: true, force: true });
});

/** The tool message that answers a call, found by the tool's name in the assistant message before it. */
function toolResults(messages: ChatMessage[]): Array<{ name: string; content: string }> {
  const names = new Map<string, string>();
  const results: Array<{ name: string; content: string }> = [];
  for (const message of messages) {
    if (message.role === 'assistant')
      for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
    if (message.role === 'tool')
      results.push({ name: names.get(message.tool_call_id)!, content: message.content });
  }
  return results;
}

describe('agent loop against a scripted OpenAI-compatible provider', () => {
  it('reads, edits, runs tests, checks the page, then undoes the whole run', async () => {
    // Arguments as a strict-mode model writes them: every property present, null for omitted optionals.
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          ['read_file', { path: 'src/math.js', offset_line: null, max_lines: null, encoding: null }],
          [
            'run_tests',
            { command_id: null, path: 'src/math.js', paths: null, symbol: null, timeout_seconds: null },
          ],
        ],
      },
      {
        toolCalls: [
          [
            'edit_file',
            { path: 'src/math.js', old_text: 'return a - b;', new_text: 'return a + b;', replace_all: null },
          ],
        ],
      },
      {
        toolCalls: [
          [
            'run_tests',
            { command_id: null, path: 'src/math.js', paths: null, symbol: null, timeout_seconds: null },
          ],
        ],
      },
      {
        toolCalls: [
          [
            'browser_open',
            {
              target: 'index.html',
              width: null,
              height: null,
              wait_until: null,
              timeout_seconds: null,
              wait_ms: null,
            },
          ],
          ['browser_snapshot', {}],
          ['browser_close', { reason: 'checked the sum' }],
        ],
      },
      { text: 'Fixed add in src/math.js: the test passes and the page shows 2 + 3 = 5.' },
      // Second user turn: undo.
      { toolCalls: [['undo_workspace_dispatches', { count: 1 }]] },
      { text: 'Undid the last change.' },
    ]);
    const baseUrl = await provider.start();
    try {
      const first = await runAgentLoop({
        catalog,
        baseUrl,
        model: 'scripted',
        dispatchLabel: 'fix add',
        messages: [{ role: 'user', content: 'The add function is broken. Fix it and check the page.' }],
      });
      expect(first.finalText).toContain('Fixed add');
      expect(first.steps).toBe(5);
      expect(await readFile(path.join(root, 'src', 'math.js'), 'utf8')).toBe(FIXED);

      const offered = provider.requests[0]!.tools;
      expect(offered).toHaveLength(32);
      expect(offered.at(-1)?.function.name).toBe('undo_workspace_dispatches');
      expect(offered.every((tool) => tool.type === 'function')).toBe(true);

      const results = toolResults(first.messages);
      expect(results.map((result) => result.name)).toEqual([
        'read_file',
        'run_tests',
        'edit_file',
        'run_tests',
        'browser_open',
        'browser_snapshot',
        'browser_close',
      ]);
      expect(results[0]!.content).toContain('return a - b;');
      expect(results[1]!.content).toMatch(/FAILED/);
      expect(results[2]!.content).not.toMatch(/^Error/);
      expect(results[3]!.content).toMatch(/passed/i);
      expect(results[3]!.content).not.toMatch(/FAILED/);
      expect(results[5]!.content).toContain('2 + 3 = 5');
      // What the model saw on its next request is exactly what the loop recorded.
      expect(provider.requests[1]!.messages.filter((message) => message.role === 'tool')).toHaveLength(2);

      const second = await runAgentLoop({
        catalog,
        baseUrl,
        model: 'scripted',
        dispatchLabel: 'undo',
        messages: [...first.messages, { role: 'user', content: 'Undo that change.' }],
      });
      expect(second.finalText).toBe('Undid the last change.');
      const undo = toolResults(second.messages).at(-1)!;
      expect(undo.name).toBe('undo_workspace_dispatches');
      expect(undo.content).not.toMatch(/^Error/);
      expect(await readFile(path.join(root, 'src', 'math.js'), 'utf8')).toBe(BROKEN);
      expect(provider.remaining).toBe(0);
    } finally {
      await provider.close();
    }
  });

  it('answers a call of an unknown tool or with malformed arguments with an error the model can read', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [['delete_everything', {}]] },
      { toolCalls: [['read_file', { path: 12 }]] },
      { text: 'done' },
    ]);
    const baseUrl = await provider.start();
    try {
      const run = await runAgentLoop({
        catalog,
        baseUrl,
        model: 'scripted',
        messages: [{ role: 'user', content: 'x' }],
      });
      const results = toolResults(run.messages);
      expect(results[0]!.content).toContain('TOOL_NOT_FOUND');
      expect(results[1]!.content).toContain('INVALID_ARGUMENTS');
    } finally {
      await provider.close();
    }
  });
});

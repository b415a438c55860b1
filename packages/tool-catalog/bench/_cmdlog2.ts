import { createToolCatalog } from '@assistant-kit/tool-catalog';
const root = process.argv[2]!;
const catalog = await createToolCatalog({ configuration: (process.env.CONF ?? 'U') as 'U', workspace: root });
for (let i = 0; i < 4; i++) {
  const log = (globalThis as any).__spawnLog as any[];
  log.length = 0;
  const s = performance.now();
  await catalog.dispatch(`c${i}`, async (tools) => {
    await tools.call('run_command', { command: `echo ${i} > packages/probe-${i}.txt; echo ${i} >> README.md` });
  });
  const total = performance.now() - s;
  console.log(i, total.toFixed(0));
  if (i === 3) for (const e of log) console.log(`  ${(e.t - s).toFixed(0).padStart(5)} +${(e.d ?? -1).toFixed(0).padStart(4)} ${e.cmd}`);
}
await catalog.close();

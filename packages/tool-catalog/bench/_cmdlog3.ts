import { createToolCatalog } from '@assistant-kit/tool-catalog';
import { GitGuard } from '../../tool-core/src/git-guard/git-guard.ts';
const log = (globalThis as any).__spawnLog as any[];
for (const name of ['snapshot', 'check'] as const) {
  const original = (GitGuard.prototype as any)[name];
  (GitGuard.prototype as any)[name] = async function (...args: unknown[]) {
    const entry: any = { t: performance.now(), cmd: `[guard ${name}]` };
    log.push(entry);
    try { return await original.apply(this, args); } finally { entry.d = performance.now() - entry.t; }
  };
}
const root = process.argv[2]!;
const catalog = await createToolCatalog({ configuration: (process.env.CONF ?? 'U') as 'U', workspace: root });
for (let i = 0; i < 4; i++) {
  log.length = 0;
  const s = performance.now();
  await catalog.dispatch(`c${i}`, async (tools) => {
    const c = performance.now();
    await tools.call('run_command', { command: `echo ${i} > packages/probe-${i}.txt; echo ${i} >> README.md` });
    log.push({ t: c, d: performance.now() - c, cmd: '[tools.call run_command]' });
  });
  const total = performance.now() - s;
  console.log(i, total.toFixed(0));
  if (i === 3) for (const e of log.sort((a, b) => a.t - b.t)) console.log(`  ${(e.t - s).toFixed(0).padStart(5)} +${(e.d ?? -1).toFixed(0).padStart(4)} ${e.cmd}`);
}
await catalog.close();

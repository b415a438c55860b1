#!/usr/bin/env node
// Stable bin entry that exists before a build, so installs never warn; the server lives in dist.
// Node 22.1+ caches the compiled bundle between runs (a client starts the server often); Node 20
// has no compile cache and starts without it.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/bin.js');

#!/usr/bin/env node
// Stable bin entry that exists before a build, so installs never warn; the server lives in dist.
await import('../dist/bin.js');

#!/usr/bin/env node
// The netpresence command. The sources are TypeScript, run through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');

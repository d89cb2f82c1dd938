/**
 * The `netpresence` command: one subcommand per file in this folder. Every subcommand runs with
 * the heap growth of runtime/heap-growth.ts.
 */
import { Command } from 'commander';
import { startHeapGrowth } from '../runtime/heap-growth.ts';
import { apiserverCommand } from './apiserver.ts';
import { cellCommand } from './cell.ts';
import { dashboardCommand } from './dashboard.ts';
import { hubNamespaceCommand } from './hub-namespace.ts';
import { managerCommand } from './manager.ts';
import { propagatorCommand } from './propagator.ts';
import { traceCommand } from './trace.ts';
import { upCommand } from './up.ts';

startHeapGrowth();

const program = new Command('netpresence')
  .description('Makes a network present in every location it is used.')
  .addCommand(apiserverCommand())
  .addCommand(managerCommand())
  .addCommand(cellCommand())
  .addCommand(propagatorCommand())
  .addCommand(traceCommand())
  .addCommand(dashboardCommand())
  .addCommand(hubNamespaceCommand())
  .addCommand(upCommand());

await program.parseAsync(process.argv);

/**
 * The `netpresence` command: one subcommand per file in this folder.
 */
import { Command } from 'commander';
import { apiserverCommand } from './apiserver.ts';
import { cellCommand } from './cell.ts';
import { managerCommand } from './manager.ts';
import { propagatorCommand } from './propagator.ts';

const program = new Command('netpresence')
  .description('Makes a network present in every location it is used.')
  .addCommand(apiserverCommand())
  .addCommand(managerCommand())
  .addCommand(cellCommand())
  .addCommand(propagatorCommand());

await program.parseAsync(process.argv);

/**
 * The `netpresence` command: one subcommand per file in this folder.
 */
import { Command } from 'commander';
import { apiserverCommand } from './apiserver.ts';

const program = new Command('netpresence')
  .description('Makes a network present in every location it is used.')
  .addCommand(apiserverCommand());

await program.parseAsync(process.argv);

import type { Command } from 'commander';

/** Client sub-commands (register, send, get, inbox, sent, respond, cancel). */
export function clientCommands(_program: Command): void {}

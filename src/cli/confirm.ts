import * as readline from 'node:readline/promises';
import { InputError } from '../domain/errors';

/** The command asking, as its refusal without a terminal names it and what to run instead. */
export type Confirming = 'apply' | 'destroy';

const WITHOUT_TERMINAL: Record<Confirming, string> = {
  apply: 'review the plan and pass --auto-approve, or apply a saved plan: fleetform plan --out FILE, then fleetform apply FILE',
  destroy: 'review the destroy plan above and run: fleetform destroy --auto-approve',
};

/** Asks on a terminal; refuses without one (CI must say --auto-approve). */
export async function confirm(question: string, autoApprove: boolean, command: Confirming = 'apply'): Promise<boolean> {
  if (autoApprove) return true;
  if (!process.stdin.isTTY) {
    throw new InputError(`${command} needs confirmation and there is no terminal to ask on`, { hint: WITHOUT_TERMINAL[command] });
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`${question}\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: `);
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}

/** Asks a yes/no question on the terminal (the caller checked there is one). */
export async function askYes(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`${question} Only 'yes' will be accepted: `);
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}

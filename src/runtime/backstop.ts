/**
 * The backstop (controllers.md §0): the one timed retry a controller schedules, 60 s after a
 * reconcile whose outcome no watch can report the end of (an IPAM refusal, say). Everything a
 * watch covers converges without it.
 */
import { after, type Outcome } from './controller.ts';

export const BACKSTOP_MS = 60_000;

/** The reconcile outcome that asks for the backstop. */
export const backstop = (): Outcome => after(BACKSTOP_MS);

/**
 * The backstop (controllers.md §0): the one timed retry a controller schedules, 60 s after a
 * reconcile whose outcome no watch can report the end of (an IPAM refusal, say). Everything a
 * watch covers converges without it.
 */
export const BACKSTOP_MS = 60_000;

/** The reconcile result that asks for the backstop. */
export const backstop = (): { requeueAfterMs: number } => ({ requeueAfterMs: BACKSTOP_MS });

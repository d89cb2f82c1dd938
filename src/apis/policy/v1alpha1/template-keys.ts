/**
 * Keys the propagation engine reads on hub templates and namespaces besides the claim keys of
 * the two policy kinds (propagation.md §1.3, §5.4, §5.5).
 */

/** A template with any non-empty value is never claimed. */
export const CLAIMED_BY_LABEL = 'resourcetemplate.karmada.io/claimed-by';
/** `overwrite` or `abort` on a template overrides its policy; also written on Works and copies. */
export const CONFLICT_RESOLUTION_ANNOTATION = 'work.karmada.io/conflict-resolution';
/** A hub namespace labelled `true` (any case) is not carried to members. */
export const SKIP_AUTO_PROPAGATION_LABEL = 'namespace.karmada.io/skip-auto-propagation';

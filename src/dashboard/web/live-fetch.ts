/**
 * A view's data, fetched again on every change the server announces.
 *
 * Guarantees: every answer newer than the one shown is shown, even while a still newer question
 * is on its way — under a stream of changes (a binding's creation sets off writes in five
 * planes) the view keeps moving instead of waiting for the changes to stop; an answer older than
 * the one shown, or about another subject than the one asked last, is never shown.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export function useLiveFetch<T>(
  subject: string,
  version: number,
  load: () => Promise<T>,
): { data?: T; error?: string } {
  const [state, setState] = useState<{ subject: string; data?: T; error?: string }>({ subject });
  const asked = useRef(0);
  const shown = useRef(0);
  const about = useRef(subject);
  // A layout effect: the question leaves as soon as the render is done, not a frame later.
  useLayoutEffect(() => {
    const question = ++asked.current;
    // Answers about an earlier subject are older questions: none of them is shown any more.
    if (about.current !== subject) shown.current = question - 1;
    about.current = subject;
    const answer = (next: { data?: T; error?: string }) => {
      if (question <= shown.current) return;
      shown.current = question;
      setState({ subject, ...next });
    };
    load().then(
      (data) => answer({ data }),
      (err: Error) => answer({ error: err.message }),
    );
  }, [subject, version]);
  return state.subject === subject ? state : {};
}

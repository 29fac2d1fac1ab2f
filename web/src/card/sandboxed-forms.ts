/**
 * A host may frame the card sandboxed without `allow-forms`: the browser then blocks every form
 * submission before its `submit` event fires, so the terminal's forms (which handle `onSubmit` and
 * never navigate) would do nothing. The card turns a submit button's click, and Enter in a text
 * field, into that `submit` event itself; React's `onSubmit` then runs as on any device.
 */
export function submitFormsInSandbox(doc: Document): void {
  const submit = (form: HTMLFormElement | null | undefined, event: Event) => {
    if (!form) return;
    event.preventDefault();
    form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
  };
  doc.addEventListener(
    'click',
    (event) => {
      const button = (event.target as Element | null)?.closest?.('button');
      if (button?.type === 'submit' && !button.disabled) submit(button.form, event);
    },
    true,
  );
  doc.addEventListener(
    'keydown',
    (event) => {
      const input = event.target as HTMLInputElement | null;
      if (event.key !== 'Enter' || input?.tagName !== 'INPUT') return;
      if (['text', 'number', 'email', 'search', 'url'].includes(input.type)) submit(input.form, event);
    },
    true,
  );
}

// Keyboard navigation: `/` to the search box, `g` then a letter to a page, `?` for the list. Keys typed into a field
// are the field's.

/** `g` then one of these letters opens the page. */
export const goKeys: Record<string, string> = { h: 'home', s: 'scripts', r: 'runs', a: 'approvals', f: 'flows', u: 'usage', m: 'marketplace' };

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/** Listens until the returned function is called; `onHelp` toggles the list of keys. */
export function listenForKeys(onHelp: () => void): () => void {
  let afterG = false;
  const onKey = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (afterG) {
      afterG = false;
      const page = goKeys[event.key];
      if (page) location.hash = `#/${page}`;
      return;
    }
    if (event.key === 'g') afterG = true;
    else if (event.key === '?') onHelp();
    else if (event.key === '/') {
      event.preventDefault();
      document.querySelector<HTMLInputElement>('input[name=search]')?.focus();
    }
  };
  addEventListener('keydown', onKey);
  return () => removeEventListener('keydown', onKey);
}

// The code editor component; CodeMirror itself loads on first use, so pages without an editor stay light.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Busy, ErrorMessage } from './ui';

/** An editor for `runtime` code; `onChange` gets every edit. Keyboard: Tab indents, Escape then Tab leaves. `readOnly` only shows it. */
export function CodeEditor({
  value,
  runtime,
  label,
  readOnly,
  onChange,
}: {
  value: string;
  runtime: string;
  label: string;
  readOnly?: boolean;
  onChange?(code: string): void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  const [state, setState] = useState<{ ready: boolean; error?: unknown }>({ ready: false });
  useEffect(() => {
    let editor: { destroy(): void } | undefined;
    let gone = false;
    import('./codemirror').then(
      ({ createEditor }) => {
        if (gone) return;
        editor = createEditor({ parent: host.current!, doc: value, runtime, label, readOnly, onChange: (code) => changed.current?.(code) });
        setState({ ready: true });
      },
      (error: unknown) => setState({ ready: false, error }),
    );
    return () => {
      gone = true;
      editor?.destroy();
    };
  }, [runtime]);
  return (
    <>
      {!state.ready && !state.error && <Busy label="Loading the editor" />}
      <ErrorMessage error={state.error} />
      <div class="editor" ref={host} />
    </>
  );
}

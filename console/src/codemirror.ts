// CodeMirror 6, loaded on first use (a chunk of its own): JavaScript or Python highlighting from the legacy modes
// (a tenth of the size of the full grammars) and lint on the fly from the platform's lintScript.
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { StreamLanguage, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { javascript } from '@codemirror/legacy-modes/mode/javascript';
import { python } from '@codemirror/legacy-modes/mode/python';
import { type Diagnostic, lintGutter, linter } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { api, unwrap } from './api';

async function lint(view: EditorView, runtime: string): Promise<Diagnostic[]> {
  const code = view.state.doc.toString();
  if (!code.trim()) return [];
  const result = await unwrap(api().POST('/api/sdk/v1/scripts/lintScript', { body: { code, runtime: runtime as never } })).catch(() => undefined);
  return (result?.issues ?? []).map((issue) => {
    const line = view.state.doc.line(Math.min(Math.max(issue.line, 1), view.state.doc.lines));
    return { from: line.from, to: line.to, severity: issue.severity, message: issue.suggestion ? `${issue.message} (${issue.suggestion})` : issue.message };
  });
}

/** `readOnly`: shows code without editing or linting it (a stored version). */
export function createEditor(options: { parent: HTMLElement; doc: string; runtime: string; label: string; readOnly?: boolean; onChange(code: string): void }): {
  destroy(): void;
} {
  return new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        lineNumbers(),
        history(),
        indentOnInput(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        StreamLanguage.define(options.runtime.startsWith('python') ? python : javascript),
        options.readOnly
          ? [EditorState.readOnly.of(true), EditorView.editable.of(false)]
          : [lintGutter(), linter((view) => lint(view, options.runtime), { delay: 600 })],
        EditorView.contentAttributes.of({ 'aria-label': options.label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
}

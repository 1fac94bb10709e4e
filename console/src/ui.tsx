import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

// Shared pieces of every page. User text is only ever passed as children (Preact escapes it).

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` when `deps` change and on `reload()`. `loading` is true from the first render with
 * new deps (not only once the effect has run), so a list never claims to show a page it has not loaded.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean; key?: string }>({ loading: true });
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false, key }),
      (error: unknown) => live && setState({ error, loading: false, key }),
    );
    return () => {
      live = false;
    };
  }, [...deps, n]);
  const reload = useCallback(() => setN((x) => x + 1), []);
  return { data: state.data, error: state.error, loading: state.loading || state.key !== key, reload };
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {errorText(error)}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p class="muted" aria-live="polite">Loading {what}…</p>;
}

/** What a list shows when it has nothing, and what to do next. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/** A destructive action: the first press asks, the second does it. */
export function ConfirmButton({ label, question, onConfirm, disabled }: { label: string; question: string; onConfirm: () => Promise<void> | void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) {
    return (
      <button type="button" class="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        class="danger"
        disabled={busy}
        autoFocus
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A secret the service shows once: displayed with a copy button and a warning. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="status">
      <p>
        <strong>{label}</strong> — shown once. Copy it now; the service never shows it again.
      </p>
      <code class="secret-value" data-testid="secret">
        {value}
      </code>
      <div class="row">
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(value);
              setCopied(true);
            } catch {
              setCopied(false);
            }
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        {onDone && (
          <button type="button" onClick={onDone}>
            I have saved it
          </button>
        )}
      </div>
    </div>
  );
}

let fieldIds = 0;
/** A labelled form control with its error placed under it (linked by aria-describedby). */
export function Field({ label, error, hint, children }: { label: string; error?: string; hint?: string; children: (id: string, describedBy: string | undefined) => ComponentChildren }) {
  const [id] = useState(() => `f${++fieldIds}`);
  const describedBy = [error ? `${id}-err` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={error ? 'field invalid' : 'field'}>
      <label for={id}>{label}</label>
      {children(id, describedBy)}
      {hint && (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-err`} class="field-error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

export function TextField(props: { label: string; value: string; onInput: (v: string) => void; error?: string; hint?: string; type?: 'text' | 'email' | 'password' | 'url' | 'tel'; required?: boolean; name?: string; autoComplete?: string; placeholder?: string }) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint}>
      {(id, describedBy) => (
        <input
          id={id}
          name={props.name}
          type={(props.type ?? 'text') as 'text'}
          value={props.value}
          required={props.required}
          autoComplete={props.autoComplete}
          placeholder={props.placeholder}
          aria-invalid={props.error ? true : undefined}
          aria-describedby={describedBy}
          onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
        />
      )}
    </Field>
  );
}

/** Submit handler state for a form: busy flag, error, field errors from a 422. */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await fn();
    } catch (err) {
      setError(err);
      if (err instanceof ApiError) setFields(err.fieldErrors());
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, fields, run };
}

export function Pager({ offset, limit, count, onChange }: { offset: number; limit: number; count: number; onChange: (offset: number) => void }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        Newer
      </button>
      <span>
        {count === 0 ? 'none' : `${offset + 1}–${offset + count}`}
      </span>
      <button type="button" disabled={count < limit} onClick={() => onChange(offset + limit)}>
        Older
      </button>
    </nav>
  );
}

export function Badge({ children, tone }: { children: ComponentChildren; tone?: 'good' | 'bad' | 'warn' }) {
  return <span class={`badge ${tone ?? ''}`}>{children}</span>;
}

const NANO = 1_000_000_000n;
/** nano-USD decimal string → "$1.234567" (bigint arithmetic, never floats). */
export function usd(nano: string | null | undefined): string {
  if (nano === null || nano === undefined) return '—';
  const n = BigInt(nano);
  const neg = n < 0n;
  const abs = neg ? -n : n;
  const frac = (abs % NANO).toString().padStart(9, '0').replace(/0{1,3}$/, '').replace(/0+$/, '');
  return `${neg ? '-' : ''}$${(abs / NANO).toString()}${frac ? `.${frac.padEnd(2, '0')}` : '.00'}`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString();
}

/** Calls `reload` every `ms` while `active` (a page that follows something still running). */
export function usePolling(reload: () => void, active: boolean, ms = 2000): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(reload, ms);
    return () => clearInterval(timer);
  }, [active, ms]);
}

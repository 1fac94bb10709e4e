import { useState } from 'preact/hooks';
import { api } from '../api';
import { clearTokens, storeTokens } from '../auth';
import { navigate, useLocation } from '../router';
import { ErrorNote, TextField, useSubmit } from '../ui';

// Sign up, verify e-mail, log in. After logging in the person returns to the page that sent
// them here (?next=), so a session that ended mid-work loses nothing but the token.

function safeNext(next: string | null): string {
  // Only same-site paths: never an absolute URL or a protocol-relative one.
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/projects';
}

export function LoginPage() {
  const { query } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, fields, run } = useSubmit();
  const next = query.get('next');
  return (
    <main class="narrow">
      <h1>Log in</h1>
      {next && <p class="notice">Your session ended. Log in to go back to where you were.</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            storeTokens(await api('POST', '/console/auth/login', { email, password }));
            navigate(safeNext(next), true);
          });
        }}
      >
        <TextField label="E-mail" name="email" type="email" autoComplete="username" value={email} onInput={setEmail} error={fields.email} required />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" value={password} onInput={setPassword} error={fields.password} required />
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy}>
          Log in
        </button>
      </form>
      <p>
        No account? <a href="/signup">Sign up</a>. Have a verification link? <a href="/verify">Verify your e-mail</a>.
      </p>
    </main>
  );
}

export function SignupPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const { busy, error, fields, run } = useSubmit();
  if (done) {
    return (
      <main class="narrow">
        <h1>Check your e-mail</h1>
        <p>
          We sent a verification link to <strong>{done}</strong>.
        </p>
        <p class="notice">
          Running the service yourself without <code>SMTP_URL</code>? The development mail transport writes the mail to the service log instead: look for
          the line <code>mail for account</code> and open its link, or paste it on the verify page.
        </p>
        <p>
          <a href="/verify">Verify your e-mail</a>
        </p>
      </main>
    );
  }
  return (
    <main class="narrow">
      <h1>Sign up</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const account = await api<{ email: string }>('POST', '/console/auth/signup', { email, password });
            setDone(account.email);
          });
        }}
      >
        <TextField label="E-mail" name="email" type="email" autoComplete="username" value={email} onInput={setEmail} error={fields.email} required />
        <TextField label="Password" name="password" type="password" autoComplete="new-password" hint="12 to 256 characters." value={password} onInput={setPassword} error={fields.password} required />
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy}>
          Create account
        </button>
      </form>
      <p>
        Already have an account? <a href="/login">Log in</a>.
      </p>
    </main>
  );
}

/** Accepts the token, or the whole link from the mail (or the log line of the development transport). */
export function tokenFrom(input: string): string {
  const m = /token=([A-Za-z0-9_-]+)/.exec(input);
  return (m ? m[1] : input).trim();
}

export function VerifyPage() {
  const { query } = useLocation();
  const [value, setValue] = useState(query.get('token') ?? '');
  const [verified, setVerified] = useState(false);
  const { busy, error, fields, run } = useSubmit();
  return (
    <main class="narrow">
      <h1>Verify your e-mail</h1>
      <p class="notice">
        In development the service has no mail server: the development mail transport prints the verification link in the service log (the line{' '}
        <code>mail for account</code>). Paste the link or its token here.
      </p>
      {verified ? (
        <p role="status">
          Your e-mail is verified. <a href="/login">Log in</a>.
        </p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              await api('POST', '/console/auth/verify-email', { token: tokenFrom(value) });
              setVerified(true);
            });
          }}
        >
          <TextField label="Verification link or token" name="token" value={value} onInput={setValue} error={fields.token} required />
          <ErrorNote error={error} />
          <button type="submit" class="primary" disabled={busy}>
            Verify
          </button>
        </form>
      )}
    </main>
  );
}

export async function logOut(): Promise<void> {
  try {
    await api('POST', '/console/auth/logout');
  } catch {
    // Logged out locally whatever the service says.
  }
  clearTokens();
  navigate('/login', true);
}

/** @jsxRuntime automatic @jsxImportSource preact */
import { Bare } from './layout';

export function LoginPage({
  csrf,
  next,
  error,
  email,
}: {
  csrf: string;
  next: string;
  error?: string;
  email?: string;
}) {
  return (
    <Bare title="Sign in">
      {error ? (
        <p role="alert" class="notice error">
          {error}
        </p>
      ) : null}
      <form method="post" action="/login">
        <input type="hidden" name="_csrf" value={csrf} />
        <input type="hidden" name="next" value={next} />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value={email ?? ''} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
    </Bare>
  );
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { loginBody } from '../../../src/routes/auth/auth-schemas.js';
import { api } from '../api/client';
import { queries } from '../api/queries';
import { AuthCard } from '../components/app-layout';
import { TextField } from '../components/field';
import { ErrorAlert } from '../components/status';
import { safeRedirect } from '../lib/safe-redirect';
import { fieldErrors } from '../lib/validation';

const route = getRouteApi('/login');

export function LoginPage() {
  const { redirect } = route.useSearch();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const github = useQuery(queries.codehostConfigured());
  const [errors, setErrors] = useState<Record<string, string>>({});

  const signIn = useMutation({
    mutationFn: (body: { email: string; password: string }) => api('POST', '/auth/login', body),
    onSuccess: async () => {
      await queryClient.invalidateQueries();
      await navigate({ href: safeRedirect(redirect) });
    },
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const parsed = loginBody.safeParse({ email: form.get('email'), password: form.get('password') });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    signIn.mutate(parsed.data);
  };

  return (
    <AuthCard title="Sign in">
      <form onSubmit={submit} noValidate className="stack">
        <ErrorAlert error={signIn.error} />
        <TextField label="Email" name="email" type="email" autoComplete="email" required error={errors.email} />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required error={errors.password} />
        <button type="submit" className="button button-primary" disabled={signIn.isPending}>
          Sign in
        </button>
      </form>
      {github.data?.configured ? (
        <a className="button button-github" href="/auth/codehost">
          Sign in with GitHub
        </a>
      ) : null}
      <p className="auth-links">
        <Link to="/signup" search={{ redirect }}>
          Create an account
        </Link>
        <Link to="/forgot-password">Forgot password?</Link>
      </p>
    </AuthCard>
  );
}

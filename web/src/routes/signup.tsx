import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { signupBody, verifyBody } from '../../../src/routes/auth/auth-schemas.js';
import { api } from '../api/client';
import { AuthCard } from '../components/app-layout';
import { TextField } from '../components/field';
import { ErrorAlert, Notice } from '../components/status';
import { safeRedirect } from '../lib/safe-redirect';
import { fieldErrors, formText } from '../lib/validation';

const route = getRouteApi('/signup');

export function SignupPage() {
  const { redirect } = route.useSearch();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});

  const signUp = useMutation({
    mutationFn: (body: { name: string; email: string; password: string }) => api('POST', '/auth/signup', body),
    onSuccess: (_, body) => setEmail(body.email),
  });
  const verify = useMutation({
    mutationFn: (body: { email: string; otp: string }) => api('POST', '/auth/verify-email', body),
    onSuccess: async () => {
      await queryClient.invalidateQueries();
      await navigate({ href: safeRedirect(redirect) });
    },
  });

  const submitSignup = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const parsed = signupBody.safeParse({ name: form.get('name'), email: form.get('email'), password: form.get('password') });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    signUp.mutate(parsed.data);
  };

  const submitCode = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const parsed = verifyBody.safeParse({ email, otp: formText(form, 'otp').trim() });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    verify.mutate(parsed.data);
  };

  return (
    <AuthCard title="Create your account">
      {email === null ? (
        <form onSubmit={submitSignup} noValidate className="stack">
          <ErrorAlert error={signUp.error} />
          <TextField label="Name" name="name" autoComplete="name" required maxLength={56} error={errors.name} />
          <TextField label="Email" name="email" type="email" autoComplete="email" required error={errors.email} />
          <TextField label="Password" name="password" type="password" autoComplete="new-password" required error={errors.password} hint="8 to 128 characters." />
          <button type="submit" className="button button-primary" disabled={signUp.isPending}>
            Create account
          </button>
        </form>
      ) : (
        <form onSubmit={submitCode} noValidate className="stack">
          <Notice>We sent a 6-digit code to {email}. It is valid for 10 minutes.</Notice>
          <ErrorAlert error={verify.error} />
          <TextField label="Verification code" name="otp" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required error={errors.otp} />
          <button type="submit" className="button button-primary" disabled={verify.isPending}>
            Verify
          </button>
        </form>
      )}
      <p className="auth-links">
        <Link to="/login" search={{ redirect }}>
          Already have an account? Sign in
        </Link>
      </p>
    </AuthCard>
  );
}

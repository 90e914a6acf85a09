import { useMutation } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { forgotPasswordBody, otpSchema } from '../../../src/routes/auth/auth-schemas.js';
import { passwordSchema } from '../../../src/routes/common-schemas.js';
import { api } from '../api/client';
import { AuthCard } from '../components/app-layout';
import { TextField } from '../components/field';
import { ErrorAlert, Notice } from '../components/status';
import { formText } from '../lib/validation';

/** Recovery in the API's steps: a code by email, the code checked, then the new password. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});

  const sendCode = useMutation({
    mutationFn: (body: { email: string }) => api('PATCH', '/auth/forgot-password', body),
    onSuccess: (_, body) => setEmail(body.email),
  });
  const reset = useMutation({
    mutationFn: async ({ otp, password }: { otp: string; password: string }) => {
      await api('PATCH', '/auth/verify-forgot-password', { email, otp });
      await api('PATCH', '/auth/reset-password', { email, password });
    },
    onSuccess: () => setDone(true),
  });

  const submitEmail = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = forgotPasswordBody.safeParse({ email: new FormData(event.currentTarget).get('email') });
    if (!parsed.success) return setErrors({ email: parsed.error.issues[0]?.message ?? 'is invalid' });
    setErrors({});
    sendCode.mutate(parsed.data);
  };

  const submitReset = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const otp = otpSchema.safeParse(formText(form, 'otp').trim());
    const password = passwordSchema.safeParse(form.get('password'));
    const next: Record<string, string> = {};
    if (!otp.success) next.otp = otp.error.issues[0]?.message ?? 'is invalid';
    if (!password.success) next.password = password.error.issues[0]?.message ?? 'is invalid';
    setErrors(next);
    if (otp.success && password.success) reset.mutate({ otp: otp.data, password: password.data });
  };

  return (
    <AuthCard title="Reset your password">
      {done ? (
        <div className="stack">
          <Notice>Your password was changed.</Notice>
          <Link to="/login" search={{ redirect: undefined }} className="button button-primary">
            Sign in
          </Link>
        </div>
      ) : email === null ? (
        <form onSubmit={submitEmail} noValidate className="stack">
          <ErrorAlert error={sendCode.error} />
          <TextField label="Email" name="email" type="email" autoComplete="email" required error={errors.email} />
          <button type="submit" className="button button-primary" disabled={sendCode.isPending}>
            Send code
          </button>
        </form>
      ) : (
        <form onSubmit={submitReset} noValidate className="stack">
          <Notice>If an account uses {email}, a 6-digit code is on its way.</Notice>
          <ErrorAlert error={reset.error} />
          <TextField label="Verification code" name="otp" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required error={errors.otp} />
          <TextField label="New password" name="password" type="password" autoComplete="new-password" required error={errors.password} />
          <button type="submit" className="button button-primary" disabled={reset.isPending}>
            Reset password
          </button>
        </form>
      )}
      <p className="auth-links">
        <Link to="/login" search={{ redirect: undefined }}>
          Back to sign in
        </Link>
      </p>
    </AuthCard>
  );
}

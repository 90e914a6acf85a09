import type { MailMessage } from '../adapters/mail/mailer.js';

// The code goes in the body only: subjects show up in logs and notification previews.
export function verificationEmail(to: string, name: string, code: string, publicUrl: string): MailMessage {
  return {
    to,
    subject: 'Verify your email',
    text: `Hello ${name},\n\nYour verification code is ${code}. It is valid for 10 minutes.\n\n${publicUrl}\n`,
  };
}

export function recoveryEmail(to: string, code: string, publicUrl: string): MailMessage {
  return {
    to,
    subject: 'Reset your password',
    text: `Your password reset code is ${code}. It is valid for 10 minutes.\n\nIf you did not ask for it, ignore this email: your password stays as it is.\n\n${publicUrl}\n`,
  };
}
